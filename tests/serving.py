"""A WSGI app served by a real HTTP server on an ephemeral loopback port, in a thread: the task
server, the local MTurk service, whatever a test needs to reach over HTTP."""

from __future__ import annotations

import threading
import time
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
        # a short poll: `stop` waits up to one poll interval for the loop to notice
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

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


def until_rechecked(app: Any, seconds: float = 30.0) -> None:
    """Wait until the task server ``app`` has no recheck waiting or running: a page posts its
    answers before MTurk knows the assignment is completed, so they are quarantined and stored
    (and screened, and screening's decisions carried out) by a recheck a moment later."""
    rechecks = app.extensions["harness.trust"].rechecks
    deadline = time.monotonic() + seconds
    while not rechecks.idle():
        if time.monotonic() > deadline:
            raise AssertionError(f"the task server's rechecks still running after {seconds:g} s")
        time.sleep(0.05)


def until_healthy(
    process: Any, url: str, log: Any, *, seconds: float = 180.0, request_timeout: float = 5.0
) -> None:
    """Wait until the server ``process`` started (a ``subprocess.Popen``) answers
    ``GET {url}/health`` with a success, polling every 50 ms: at once on a quiet machine, and
    up to ``seconds`` on a loaded one (a CI runner), where start-up (imports, migrations, the
    start-up screening, forking workers) can take many times longer. Not yet listening, an
    error answer or a request that hangs past ``request_timeout`` all mean "not yet"; the
    process exiting fails at once, with its log (``log``: a path)."""
    import requests

    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise AssertionError(f"the server exited ({process.returncode}): {log.read_text()}")
        try:
            if requests.get(f"{url}/health", timeout=request_timeout).ok:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not answer in {seconds:g} s: {log.read_text()}")
        time.sleep(0.05)
