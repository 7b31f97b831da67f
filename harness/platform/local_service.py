"""Start one of harness's local platform services in the background, unless it answers already;
and `is_loopback`, what every check that something stays on this machine asks.

Used by a platform's `start_local` (e.g. `harness launch --start-local` on the local MTurk
target): the service runs in a session of its own, so it outlives the command that started it
(and a Ctrl-C of that command), with its state and log in the working directory.
"""

from __future__ import annotations

import ipaddress
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from harness.errors import InputError, PlatformError
from harness.platform.registry import platform_named

if TYPE_CHECKING:
    from harness.platform.contract import LocalService
    from harness.store.studies import LaunchedStudy

START_WAIT = 120.0
"""Seconds a started service gets to answer: at once on a quiet machine, and many times its
usual second or two on a loaded one (imports, its database, gunicorn's worker)."""


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a URL's hostname, bracketed or not) names this machine: localhost,
    127.0.0.0/8 or ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address((host or "").strip("[]")).is_loopback
    except ValueError:
        return False


def answers(url: str) -> bool:
    """Whether ``url`` answers an HTTP GET with a success status within 5 seconds (nothing
    listening is known at once; a busy machine can take seconds to answer)."""
    import requests

    try:
        return bool(requests.get(url, timeout=5).ok)
    except requests.RequestException:
        return False


def start_service(local_service: Callable[[int, str], LocalService], url: str, stem: str) -> str:
    """Run the platform's local service (``local_service(port, state)``) at ``url`` in the
    background, its state in ``stem.sqlite`` and its log in ``stem.log``, unless its probe
    answers already; wait until it does (up to `START_WAIT` seconds). Returns what happened,
    for the person; `InputError` if it would not start."""
    parts = urlsplit(url)
    state_name, log_name = f"{stem}.sqlite", f"{stem}.log"
    service = local_service(parts.port or 80, state_name)
    name, command = service.name, [*service.command, "--host", parts.hostname or "127.0.0.1"]
    probe_url = url + service.probe
    if answers(probe_url):
        return f"{name} already running at {url}"
    log = os.open(log_name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    argv = [sys.executable, "-m", "harness", *command]
    pid = os.posix_spawn(
        sys.executable,
        argv,
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, log, 1),
            (os.POSIX_SPAWN_DUP2, log, 2),
        ],
        setsid=True,
    )
    os.close(log)
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if answers(probe_url):
            return (
                f"started {name} at {url} (pid {pid}, state in {state_name}, log in {log_name}; "
                f"stop it with kill {pid})"
            )
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            break  # it exited
        time.sleep(0.1)
    raise InputError(f"could not start {name} at {url}: see {log_name}")


def require_answering(running: LaunchedStudy) -> None:
    """Refuse at once, saying how to start it again, when ``running`` is on a local service
    that does not answer (`harness demo` stops the services it started): `PlatformError`.
    Nothing is asked of a study on another target, or on a platform without a service."""
    platform = platform_named(running.platform.provider)
    endpoint = running.platform.endpoint_url
    if not endpoint or not platform.is_local(running.target):
        return
    service = platform.local_service(urlsplit(endpoint).port or 80, "STATE")
    if service is None or answers(endpoint.rstrip("/") + service.probe):
        return
    command = " ".join(["harness", *service.command])
    raise PlatformError(
        f"{service.name} at {endpoint} does not answer: start it again with `{command}` "
        f"(STATE: the file it kept its state in; `harness demo` leaves it in its run folder), "
        "then run this command again"
    )
