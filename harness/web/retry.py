"""Run a request once more when the database dropped its connection in the middle of it.

A PostgreSQL restart, a failover or a proxy closing connections cuts the connections in use;
a request on one fails although the database is back a moment later. Every request of the task
server is one transaction, so the failed one wrote nothing (or, if the connection dropped
during the commit, everything), and running it again is safe: the database's unique
constraints make a repeated accept or submission read what is there (a worker whose answers
were stored by the first attempt is told they are recorded). The request body is kept (up to
the app's size limit) so it can be read twice; a request without a length is not retried.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa
from flask import Flask, got_request_exception, request

_DROPPED = "harness.connection_dropped"
StartResponse = Callable[..., Any]


class RetryOnDisconnect:
    """WSGI middleware around ``app.wsgi_app``: up to ``attempts`` runs of a request whose
    database connection was dropped (`sqlalchemy.exc.DBAPIError.connection_invalidated`)."""

    def __init__(self, app: Flask, attempts: int = 2) -> None:
        self.wsgi = app.wsgi_app
        self.attempts = attempts
        self.limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        got_request_exception.connect(self._mark, app, weak=False)

    @staticmethod
    def _mark(_sender: Any, exception: BaseException, **_extra: Any) -> None:
        if isinstance(exception, sa.exc.DBAPIError) and exception.connection_invalidated:
            request.environ[_DROPPED] = True

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0 or (self.limit and length > self.limit):
            return self.wsgi(environ, start_response)  # not kept: Flask refuses or streams it
        body = environ["wsgi.input"].read(length) if length else b""
        for attempt in range(self.attempts):
            run = dict(environ, **{"wsgi.input": io.BytesIO(body)})
            answer: list[Any] = []

            def hold(
                status: str, headers: list[Any], exc_info: Any = None, answer: list[Any] = answer
            ) -> Any:
                answer[:] = [status, headers, exc_info]
                return lambda _data: None

            result = self.wsgi(run, hold)
            if run.get(_DROPPED) and attempt + 1 < self.attempts:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
                continue
            start_response(*answer)
            return result
        raise AssertionError("unreachable: the last attempt always answers")
