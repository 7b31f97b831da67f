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
from typing import Any

from harness.gunicorn_app import ServerOptions, run_gunicorn


def serve(build: Callable[[], Any], options: ServerOptions, extension: str = "mturk_local") -> None:
    """Run until stopped: `build()` makes the Flask app inside the worker process; its
    database (the app's ``extension``) is closed when the worker process ends (graceful stop,
    restart)."""
    run_gunicorn(build, options.gunicorn(), lambda app: app.extensions[extension].close())
