"""The wait for a started server (`tests.serving.until_healthy`): it returns as soon as the
server is healthy, sits through a slow start (not listening, error answers, a hung request),
and fails at once, with the log, when the server exits."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from tests.serving import ServedApp, until_healthy


def _alive() -> subprocess.Popen[bytes]:
    """A process that stays up while the test runs (stands in for the server's process)."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def _slow_start(errors: int, hang: float) -> tuple[object, list[float]]:
    """A WSGI app whose /health first hangs ``hang`` seconds once, then answers 503
    ``errors`` times, then 200; the times of the requests are noted."""
    seen: list[float] = []
    lock = threading.Lock()

    def app(environ, start_response):
        with lock:
            seen.append(time.monotonic())
            n = len(seen)
        if n == 1 and hang:
            time.sleep(hang)
        status = "503 Service Unavailable" if n <= errors + 1 else "200 OK"
        start_response(status, [("Content-Type", "text/plain")])
        return [b"ok" if status == "200 OK" else b"starting"]

    return app, seen


def test_a_slow_start_is_waited_out_and_a_ready_server_is_not_waited_for(tmp_path):
    log = tmp_path / "serve.log"
    log.write_text("")
    app, seen = _slow_start(errors=5, hang=4)  # hangs past the request timeout, on any machine
    process = _alive()
    try:
        with ServedApp(app) as served:
            until_healthy(process, served.url, log, seconds=120, request_timeout=2)
            assert len(seen) == 7  # the hung request, five errors, then healthy
            until_healthy(process, served.url, log, seconds=120)
            assert len(seen) == 8  # healthy already: one request
    finally:
        process.kill()
        process.wait()


def test_a_server_not_listening_yet_is_polled_until_the_deadline(tmp_path):
    log = tmp_path / "serve.log"
    log.write_text("starting...")
    process = _alive()
    try:
        start = time.monotonic()
        with pytest.raises(AssertionError, match=r"did not answer in 0.5 s: starting\.\.\."):
            until_healthy(process, "http://127.0.0.1:9", log, seconds=0.5)
        assert time.monotonic() - start < 60  # given up at its deadline, not the default 3 min
    finally:
        process.kill()
        process.wait()


def test_a_server_that_exits_fails_at_once_with_its_log(tmp_path):
    log = tmp_path / "serve.log"
    log.write_text("Error: no such database")
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(2)"])
    process.wait()
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"exited \(2\): Error: no such database"):
        until_healthy(process, "http://127.0.0.1:9", log, seconds=60)
    assert time.monotonic() - start < 30  # at once, not after the 60 s given
