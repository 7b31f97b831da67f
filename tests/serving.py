"""A WSGI app served by a real HTTP server on an ephemeral loopback port, in a thread: the task
server, the local MTurk service, whatever a test needs to reach over HTTP."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable, Iterable
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
        self.holds: list[Held] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def start(self) -> ServedApp:
        self.thread.start()
        return self

    def hold(self, matches: Callable[[dict[str, Any]], bool], nth: int = 1) -> Held:
        """Hold the ``nth`` request ``matches`` picks (by its WSGI environ) before the app
        sees it, until `Held.release`: a request that is certainly in flight, for as long as
        a test needs, however slow the machine."""
        held = Held(self.server.app, matches, nth)
        self.server.app = held
        self.holds.append(held)
        return held

    def stop(self) -> None:
        for held in self.holds:  # a test that failed holding a request: let it go
            held.open()
        self.server.shutdown()
        self.thread.join()
        self.server.server_close()

    def __enter__(self) -> ServedApp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Held:
    """WSGI middleware (see `ServedApp.hold`): the ``nth`` request ``matches`` picks waits,
    unseen by ``app``, until `release`; the others pass. Every wait is on an event, bounded
    generously (minutes), never a guess at how long the machine takes."""

    def __init__(self, app: Any, matches: Callable[[dict[str, Any]], bool], nth: int) -> None:
        self.app = app
        self.matches = matches
        self.nth = nth
        self.seen = 0
        self._lock = threading.Lock()
        self._arrived = threading.Event()
        self._go = threading.Event()
        self._done = threading.Event()
        self._drop = False

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        matched = self.matches(environ)
        with self._lock:
            self.seen += matched
            picked = matched and self.seen == self.nth
        if not picked:
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        # the whole request arrived, its body too: a client sends the body after the headers
        # (urllib3 does), and one killed in between leaves a request the service cannot read
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length) if length else b"")
        self._arrived.set()
        try:
            self._go.wait(600)
            if self._drop:  # as if it never reached the service
                start_response("503 SERVICE UNAVAILABLE", [("Content-Type", "text/plain")])
                return [b"dropped by the test"]
            answer = self.app(environ, start_response)
            try:
                return list(answer)  # the app's work done before `release` returns
            finally:
                getattr(answer, "close", lambda: None)()
        finally:
            self._done.set()

    def until_arrived(self, process: Any = None, seconds: float = 300.0) -> None:
        """Wait until the held request has reached the service; ``process`` (a
        ``subprocess.Popen`` sending it) exiting first fails at once."""
        deadline = time.monotonic() + seconds
        while not self._arrived.wait(0.05):
            if process is not None and process.poll() is not None:
                raise AssertionError(f"the process exited ({process.returncode}) first")
            if time.monotonic() > deadline:
                raise AssertionError(f"the held request did not arrive in {seconds:g} s")

    def kill_sender(self, process: Any) -> None:
        """SIGKILL ``process`` (a ``subprocess.Popen``) once its held request has arrived: a
        process killed with a call in flight. Killed in any case, and waited for."""
        try:
            self.until_arrived(process)
        finally:
            process.kill()
            process.wait()

    def open(self) -> None:
        """Let the held request through, without waiting for its answer."""
        self._go.set()

    def release(self, *, drop: bool = False, seconds: float = 300.0) -> None:
        """Let the held request through (``drop``: answer 503 without the app seeing it) and
        wait until it is answered."""
        self._drop = drop
        self.open()
        if not self._done.wait(seconds):
            raise AssertionError(f"the held request was not answered in {seconds:g} s")


def until_rechecked(app: Any, seconds: float = 300.0) -> None:
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
    process: Any,
    url: str,
    log: Any,
    *,
    seconds: float = 180.0,
    request_timeout: float = 5.0,
    probe: str = "/health",
) -> None:
    """Wait until the server ``process`` started (a ``subprocess.Popen``) answers
    ``GET {url}{probe}`` with a success, polling every 50 ms: at once on a quiet machine, and
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
            if requests.get(f"{url}{probe}", timeout=request_timeout).ok:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not answer in {seconds:g} s: {log.read_text()}")
        time.sleep(0.05)
