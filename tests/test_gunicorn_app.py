"""A server process ends the way gunicorn's ``sys.exit`` would have ended it (status, message,
flushed output and logs), without the interpreter's teardown (`harness.gunicorn_app`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.factories import PROJECT_ROOT

ENDING = """
import logging, sys
from harness.gunicorn_app import _end_now
logging.basicConfig(stream=sys.stderr, format="%(message)s")
print("served", end="")  # no newline: still in the buffer unless flushed
logging.getLogger("gunicorn").warning("worker exiting")
_end_now(eval(sys.argv[1]))
"""


def end_with(code: str) -> subprocess.CompletedProcess[str]:
    """A process that printed and logged, ended by ``_end_now(code)``."""
    return subprocess.run(
        [sys.executable, "-c", ENDING, code],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=300,
    )


@pytest.mark.parametrize(("code", "status"), [("None", 0), ("0", 0), ("3", 3)])
def test_a_server_process_ends_with_gunicorns_status_and_its_output_flushed(code, status):
    ended = end_with(code)
    assert ended.returncode == status
    assert ended.stdout == "served"
    assert ended.stderr == "worker exiting\n"


def test_a_server_process_stopped_with_a_message_prints_it_and_ends_with_status_1():
    ended = end_with("'no app to serve'")
    assert ended.returncode == 1
    assert ended.stderr == "worker exiting\nno app to serve\n"
