"""Serving a local platform service (MTurk's, Prolific's) with gunicorn: one worker process, a
pool of threads.

One process, because the service's state is one SQLite file and its clock and fault switches
live in memory; threads, so that hundreds of workers connecting at once are queued (gunicorn's
backlog) and answered rather than dropped, with slow clients (keep-alive, added latency) not
holding up the rest. The app is built in the worker process, after the fork, so no SQLite
connection crosses a fork.

Stopping: SIGTERM (`kill PID`) is graceful: the server stops accepting, lets requests in flight
finish (up to `graceful_timeout` seconds) and releases the database. Ctrl-C (SIGINT) stops at
once; every request is one transaction, so one cut short leaves nothing half-written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.gunicorn_app import run_gunicorn


@dataclass(frozen=True)
class ServerOptions:
    """How gunicorn serves the app (the defaults suit a simulated crowd of hundreds)."""

    host: str = "127.0.0.1"
    port: int = 8765
    threads: int = 32
    backlog: int = 2048
    timeout: int = 120  # seconds a worker may go silent before gunicorn restarts it
    graceful_timeout: int = 30  # seconds requests in flight get to finish on SIGTERM
    keepalive: int = 5
    name: str = "harness-mturk-local"  # the process name
    extension: str = "mturk_local"  # the app's extension closed when the worker ends

    def gunicorn(self) -> dict[str, Any]:
        return {
            "bind": f"{self.host}:{self.port}",
            "workers": 1,
            "worker_class": "gthread",
            "threads": self.threads,
            "backlog": self.backlog,
            "timeout": self.timeout,
            "graceful_timeout": self.graceful_timeout,
            "keepalive": self.keepalive,
            "preload_app": False,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": "warning",
            "proc_name": self.name,
        }


def serve(build: Callable[[], Any], options: ServerOptions) -> None:
    """Run until stopped: `build()` makes the Flask app inside the worker process; its
    database is closed when the worker process ends (graceful stop, restart)."""
    run_gunicorn(build, options.gunicorn(), lambda app: app.extensions[options.extension].close())
