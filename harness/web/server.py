"""Serving the task server with gunicorn: several worker processes, each with a pool of threads.

Each worker process builds its own app (and database engine) after the fork, so no database
connection crosses a fork; its connection pool holds as many connections as it has threads,
so a request never waits for one. The processes share nothing but the database, which decides
every race (`harness.store.received`, `harness.store.decisions`, `harness.store.locks`), so
several processes, or several machines, serve one study.

Stopping: SIGTERM (`kill PID`) is graceful: gunicorn stops accepting, lets requests in flight
finish (up to ``graceful_timeout`` seconds), each worker finishes its queued screening and
closes its connections. Ctrl-C (SIGINT) stops at once: every request is one transaction, so one
cut short leaves nothing half-written, and what was stored but not screened is screened at the
next start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.gunicorn_app import ServerOptions, run_gunicorn

if TYPE_CHECKING:
    from flask import Flask

    from harness.platform.submissions.after_submission import AfterSubmission
    from harness.web.dashboard import DashboardSettings


def _release(app: Any) -> None:
    """Finish queued screening and close the database when the worker process ends."""
    app.extensions["harness"].close()


@dataclass(frozen=True)
class TaskServer:
    """What the task server does besides serving the pages: its store, live screening (and
    whether it carries out the decisions, in the request or a moment later) and the
    researcher's dashboard."""

    database_url: str
    screening: bool = True
    apply_decisions: bool = True
    screen_inline: bool = False
    dashboard: DashboardSettings | None = None

    def after_submission(self) -> AfterSubmission | None:
        from harness.platform.submissions.after_submission import hook

        return hook(self.apply_decisions) if self.screening else None

    def catch_up(self) -> dict[int, str | None]:
        """Check the store (a missing SQLite file is refused, an unreachable or never upgraded
        store named now rather than at the first request), then screen and carry out what a
        server killed before screening (or mid-action) left; each such study's failure."""
        from sqlmodel import select

        from harness.platform.submissions.after_submission import catch_up
        from harness.store.database import open_store, session_scope
        from harness.store.models import Study

        after = self.after_submission()
        engine = open_store(self.database_url)
        try:
            with session_scope(engine) as session:
                session.exec(select(Study.id).limit(1)).first()
            return catch_up(engine, after, acting=self.apply_decisions) if after else {}
        finally:
            engine.dispose()

    def build(self, threads: int) -> Flask:
        """The app of one worker process, its platform clients made and its background work
        (rechecks, the sweep of what was left unscreened) started."""
        from harness.platform.submissions.background import BackgroundHook, Sweep
        from harness.platform.verification import Verifier, shared_platform
        from harness.web import create_app
        from harness.web.warm import warm_up

        after = self.after_submission()
        queued = None if after is None or self.screen_inline else BackgroundHook(after)
        inline_or_queued = after if queued is None else queued
        # verification, rechecks and the after-submission work share one client per platform
        app = create_app(
            self.database_url,
            after_submission=inline_or_queued,
            pool_size=threads,
            dashboard=self.dashboard,
            verifier=Verifier(shared_platform),
        )
        trust = app.extensions["harness.trust"]
        # the platform clients made (and the modules imported, if not yet) now, not by the
        # crowd's first requests
        warm_up(app.extensions["harness"].engine, trust.verifier)
        # made good within seconds by any live process: rechecks due (a stopped process's
        # too), assignments left unscreened and decisions left half done by a killed one
        trust.rechecks.watch()
        if inline_or_queued is not None:
            state = app.extensions["harness"]
            sweep = Sweep(state.engine, inline_or_queued, acting=self.apply_decisions).start()
            state.closers.insert(0, sweep.close)
        if queued is not None:  # finish the queued screening first
            app.extensions["harness"].closers.insert(0, queued.close)
        return app


def check_address(host: str, port: int) -> None:
    """`InputError` when nothing can listen on ``host:port`` (taken, or not this machine's):
    asked before the catch-up screens and acts, so a server that cannot start changes
    nothing."""
    import socket

    from harness.errors import InputError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        raise InputError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}): nothing was screened "
            "or carried out; choose another --port or stop what holds it"
        ) from None


def run_task_server(
    server: TaskServer,
    options: ServerOptions,
    say: Callable[[str], None],
    warn: Callable[[str], None],
) -> None:
    """Catch up on what a stopped server left, then serve until stopped; ``say`` gets what a
    person starting it reads, ``warn`` the failures of the catch-up."""
    from harness.store.database import safe_url
    from harness.web.warm import before_fork

    check_address(options.host, options.port)  # a refusal comes before anything is done
    failures = server.catch_up()
    if failures:
        failed = {s: f for s, f in failures.items() if f is not None}
        done = len(failures) - len(failed)
        say(
            f"screened the unscreened assignments (and carried out the decisions left) of "
            f"{done} stud{'y' if done == 1 else 'ies'}"
        )
        for study, failure in failed.items():
            warn(f"warning: screening study {study} failed ({failure})")
    # before gunicorn forks (and binds): each worker process, a restarted one too, starts
    # with them; no connection is open here (the engine is disposed, no platform client)
    before_fork()
    host, port = options.host, options.port
    say(
        f"Task pages on http://{host}:{port}/hit/<study>-<index> (store "
        f"{safe_url(server.database_url)}; {options.workers} processes x {options.threads} "
        "threads)"
    )
    if server.dashboard is not None:
        from harness.web.dashboard.access import password_notice

        say(f"Dashboard on http://{host}:{port}/dashboard/; {password_notice(server.dashboard)}")
    # until stopped; each worker process builds its own app
    run_gunicorn(lambda: server.build(options.threads), options.gunicorn(), _release)
