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
from typing import Any

from harness.gunicorn_app import run_gunicorn


@dataclass(frozen=True)
class ServeOptions:
    """How gunicorn serves the task server."""

    host: str = "127.0.0.1"
    port: int = 5000
    workers: int = 2  # processes: use the machine's cores
    threads: int = 8  # requests each process serves at once (and its database connections)
    backlog: int = 2048  # connections queued while every thread is busy, not refused
    timeout: int = 60  # seconds a worker may go silent before gunicorn restarts it
    graceful_timeout: int = 30  # seconds requests in flight get to finish on SIGTERM
    keepalive: int = 5
    access_log: bool = False

    def gunicorn(self) -> dict[str, Any]:
        return {
            "bind": f"{self.host}:{self.port}",
            "workers": self.workers,
            "worker_class": "gthread",
            "threads": self.threads,
            "backlog": self.backlog,
            "timeout": self.timeout,
            "graceful_timeout": self.graceful_timeout,
            "keepalive": self.keepalive,
            "preload_app": False,
            "accesslog": "-" if self.access_log else None,
            "errorlog": "-",
            "loglevel": "warning",
            "proc_name": "harness-serve",
            # behind a reverse proxy on this machine: trust its X-Forwarded-* headers
            "forwarded_allow_ips": "127.0.0.1,::1",
        }


def _release(app: Any) -> None:
    """Finish queued screening and close the database when the worker process ends."""
    state = app.extensions["harness"]
    close = getattr(state.after_submission, "close", None)
    if close is not None:
        close()
    state.close()


def serve(build: Callable[[], Any], options: ServeOptions) -> None:
    """Run until stopped: ``build()`` makes the Flask app inside each worker process."""
    run_gunicorn(build, options.gunicorn(), _release)
