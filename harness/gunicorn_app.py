"""gunicorn configured in code (no command line or config file is read), for every server
harness runs: the task server (`harness.web.server`) and the local platform services
(`harness.providers.mturk.local_service.server`).

The app is built inside each worker process, after the fork, so no database connection
crosses a fork; ``release(app)`` runs when a worker process ends (graceful stop, restart).
gunicorn ends the master and each worker process with ``sys.exit``; here they end at once
instead, once logs and output are flushed: the interpreter's teardown of every module a server
imported (scipy, pandas, SQLAlchemy, boto3) cost each process CPU on the way out, with
nothing left for it to do (the app is released, every thread harness starts is a daemon)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from gunicorn.app.base import BaseApplication


@dataclass(frozen=True)
class ServerOptions:
    """How gunicorn serves an app; the defaults suit a local platform service (one process,
    its threads enough for a simulated crowd of hundreds)."""

    name: str  # the process name, e.g. "harness-serve"
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = 1  # processes (the task server: about one per core)
    threads: int = 32  # requests each process serves at once (and its database connections)
    backlog: int = 2048  # connections queued while every thread is busy, not refused
    timeout: int = 120  # seconds a worker may go silent before gunicorn restarts it
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
            "proc_name": self.name,
            # behind a reverse proxy on this machine: trust its X-Forwarded-* headers
            "forwarded_allow_ips": "127.0.0.1,::1",
        }


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(
        self,
        build: Callable[[], Any],
        options: dict[str, Any],
        release: Callable[[Any], None],
    ) -> None:
        self._build = build
        self._options = options
        self._release_app = release
        self._app: Any = None
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)
        self.cfg.set("worker_exit", self._release)

    def load(self) -> Any:
        self._app = self._build()
        return self._app

    def _release(self, _server: Any, _worker: Any) -> None:
        if self._app is not None:
            self._release_app(self._app)


def run_gunicorn(
    build: Callable[[], Any], options: dict[str, Any], release: Callable[[Any], None]
) -> NoReturn:
    """Serve ``build()``'s app with gunicorn ``options`` until stopped, then end the process
    (in the master and in each worker process forked from here) with gunicorn's exit status."""
    try:
        _Gunicorn(build, options, release).run()
    except SystemExit as stop:
        _end_now(stop.code)
    _end_now(0)


def _end_now(code: object) -> NoReturn:
    """End this process as ``sys.exit(code)`` would, without the interpreter's teardown: logs
    and standard streams flushed, then ``os._exit``."""
    if code is None or isinstance(code, int):
        status = code or 0
    else:  # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or gone: nothing more can be written
            pass
    os._exit(status)
