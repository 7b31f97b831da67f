"""`harness serve`: the task server for studies with ``external`` hosting, on gunicorn."""

from __future__ import annotations

from typing import Any

import click
from sqlmodel import select

from harness.commands.options import (
    apply_option,
    db_option,
    graceful_timeout_option,
    timeout_option,
)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to listen on.")
@db_option
@click.option("--no-screening", is_flag=True, help="Do not screen submissions as they arrive.")
@apply_option
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=2,
    show_default=True,
    help="Worker processes (about one per core).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="Requests each process serves at once; each keeps as many database connections.",
)
@timeout_option(60)
@graceful_timeout_option
@click.option(
    "--screen-inline",
    is_flag=True,
    help="Screen in the request that stored the answers (default: a moment later, in a "
    "thread of the same process, so the worker is answered at once).",
)
@click.option("--access-log", is_flag=True, help="Log every request to stderr.")
@click.option(
    "--dashboard", "with_dashboard", is_flag=True,
    help="Also serve the researcher's dashboard at /dashboard/ (password: "
    "$HARNESS_DASHBOARD_PASSWORD; made and printed on 127.0.0.1 without one).",
)  # fmt: skip
def serve(
    host: str,
    port: int,
    db: str | None,
    no_screening: bool,
    apply_decisions: bool,
    workers: int,
    threads: int,
    timeout: int,
    graceful_timeout: int,
    screen_inline: bool,
    access_log: bool,
    with_dashboard: bool,
) -> None:
    """Serve the task pages of every launched study with external hosting (at
    /hit/<study>-<index>) and store what workers submit, screening each submission live and
    carrying out what screening decides. Launch with --public-url set to where this server is
    reachable (https on MTurk, see docs/deploy.md); acting on decisions needs the platform's
    credentials here. On start, and every few seconds while it runs, every stored assignment
    not screened yet is screened and every decision a stopped process left is carried out; the
    platform is asked again about quarantined submissions as they fall due, those of a stopped
    process included. Stop it with kill PID (graceful) or Ctrl-C."""
    from harness.platform.submissions.after_submission import catch_up, hook
    from harness.platform.submissions.background import BackgroundHook, Sweep
    from harness.platform.verification import Verifier, shared_platform
    from harness.store import database_url
    from harness.store.database import open_store, safe_url, session_scope
    from harness.store.models import Study
    from harness.web import create_app
    from harness.web.server import ServeOptions
    from harness.web.server import serve as run
    from harness.web.warm import before_fork, warm_up

    url = database_url(db)
    after = None if no_screening else hook(apply_decisions)
    # a missing SQLite file is refused (nothing is created), an unreachable or never upgraded
    # store is named now rather than at the first request
    engine = open_store(url)
    try:
        with session_scope(engine) as session:
            session.exec(select(Study.id).limit(1)).first()
        # what a server killed before screening (or mid-action) left: screened and done now
        failures = catch_up(engine, after, acting=apply_decisions) if after is not None else {}
    finally:
        engine.dispose()
    if failures:
        failed = {s: f for s, f in failures.items() if f is not None}
        done = len(failures) - len(failed)
        click.echo(
            f"screened the unscreened assignments (and carried out the decisions left) of "
            f"{done} stud{'y' if done == 1 else 'ies'}"
        )
        for study, failure in failed.items():
            click.echo(f"warning: screening study {study} failed ({failure})", err=True)
    dashboard = None
    if with_dashboard:
        from harness.dashboard import DashboardSettings

        dashboard = DashboardSettings.from_environment(host)

    def build() -> Any:
        inline_or_queued = after if after is None or screen_inline else BackgroundHook(after)
        # verification, rechecks and the after-submission work share one client per platform
        app = create_app(url, after_submission=inline_or_queued, pool_size=threads,
                         dashboard=dashboard, verifier=Verifier(shared_platform))  # fmt: skip
        trust = app.extensions["harness.trust"]
        # the platform clients made (and the modules imported, if not yet) now, not by the
        # crowd's first requests
        warm_up(app.extensions["harness"].engine, trust.verifier)
        # made good within seconds by any live process: rechecks due (a stopped process's
        # too), assignments left unscreened and decisions left half done by a killed one
        trust.rechecks.watch()
        if inline_or_queued is not None:
            state = app.extensions["harness"]
            sweep = Sweep(state.engine, inline_or_queued, acting=apply_decisions).start()
            state.closers.insert(0, sweep.close)
        return app

    # before gunicorn forks (and binds): each worker process, a restarted one too, starts
    # with them; no connection is open here (the engine is disposed, no platform client)
    before_fork()
    click.echo(
        f"Task pages on http://{host}:{port}/hit/<study>-<index> (store {safe_url(url)}; "
        f"{workers} processes x {threads} threads)"
    )
    if dashboard is not None:
        from harness.dashboard.access import password_notice

        click.echo(f"Dashboard on http://{host}:{port}/dashboard/; {password_notice(dashboard)}")
    run(
        build,
        ServeOptions(
            host=host,
            port=port,
            workers=workers,
            threads=threads,
            timeout=timeout,
            graceful_timeout=graceful_timeout,
            access_log=access_log,
        ),
    )
