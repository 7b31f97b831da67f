"""A WSGI app served by a real HTTP server on an ephemeral loopback port, in a thread: the task
server, the local MTurk service, whatever a test needs to reach over HTTP."""

from __future__ import annotations

import threading
from typing import Any

from werkzeug.serving import WSGIRequestHandler, make_server


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class ServedApp:
    """``app`` on 127.0.0.1:<free port>; `start`/`stop`, or use it as a context manager."""

    def __init__(self, app: Any, *, threaded: bool = True) -> None:
        self.app = app
        self.server = make_server(
            "127.0.0.1", 0, app, threaded=threaded, request_handler=_QuietHandler
        )
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def start(self) -> ServedApp:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join()
        self.server.server_close()

    def __enter__(self) -> ServedApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
