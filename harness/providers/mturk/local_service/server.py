"""Serving a local platform service (MTurk's, Prolific's) with gunicorn: one worker process, a
pool of threads.

One process, because the service's state is one SQLite file and its clock and fault switches
live in memory; threads, so that hundreds of workers connecting at once are queued (gunicorn's
backlog) and answered rather than dropped, with slow clients (keep-alive, added latency) not
holding up the rest. The app is built in the worker process, after the fork, so no SQLite
connection crosses a fork.

A request whose declared body is larger than the app takes (``max_body``) is answered without
its body being read, so the answer says ``Connection: close`` and the connection is closed: a
kept-alive connection with that much unread would be dropped by the server anyway, after an
answer promising to keep it.

Stopping: SIGTERM (`kill PID`) is graceful: the server stops accepting, lets requests in flight
finish (up to `graceful_timeout` seconds) and releases the database. Ctrl-C (SIGINT) stops at
once; every request is one transaction, so one cut short leaves nothing half-written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.gunicorn_app import ServerOptions, run_gunicorn


def serve(
    build: Callable[[], Any],
    options: ServerOptions,
    extension: str = "mturk_local",
    max_body: int | None = None,
) -> None:
    """Run until stopped: `build()` makes the Flask app inside the worker process; its
    database (the app's ``extension``) is closed when the worker process ends (graceful stop,
    restart). ``max_body``: the most bytes of body the app reads (see above)."""
    settings = options.gunicorn()
    if max_body is not None:
        settings["pre_request"] = _closing_above(max_body)
    run_gunicorn(build, settings, lambda app: app.extensions[extension].close())


def _closing_above(max_body: int) -> Callable[[Any, Any], None]:
    """A gunicorn ``pre_request`` hook: a request declaring more than ``max_body`` bytes of
    body is answered with ``Connection: close`` (its body is never read)."""

    def hook(_worker: Any, req: Any) -> None:
        for name, value in req.headers:
            if name == "CONTENT-LENGTH" and value.isdigit() and int(value) > max_body:
                req.must_close = True

    return hook
