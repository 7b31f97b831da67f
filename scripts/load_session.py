"""What the load test's simulated workers see of the servers (scripts/load_test.py): each
worker's browser times every task-server request by kind and retries what a person would, and
the timings of the whole crowd are gathered in one place.

The kinds: on MTurk, the task page and the submission (the rest goes to the local MTurk
service's worker side, timed per call); on a study link, where the task server is the whole
platform, also the entry (``/p/<study>?participant=...``, answered 303 to the page) and the
completion page (``/p/<study>/done/<ref>``). An entry answered with anything but a redirect is
a refusal (no place left, blocked): counted apart from errors, with the page's reason.
"""

from __future__ import annotations

import html
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import urllib3
from load_http import Browser, Reply

RETRIES = 5
KINDS = ("entry", "page", "submit", "done")
_REASON = re.compile(r"<p>(.*?)</p>", re.S)


@dataclass
class Timings:
    """What the crowd saw of the task server, shared by every worker thread."""

    serve_url: str
    entry: list[float] = field(default_factory=list)  # study link only
    page: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)  # study link only: the completion page
    platform: dict[str, list[float]] = field(default_factory=dict)  # worker-side call: seconds
    errors: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)  # entries refused, by reason
    acknowledged: set[str] = field(default_factory=set)  # assignments the task server stored
    last_stored: float = 0.0  # when the task server last acknowledged one (perf_counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def request_kind(url: str) -> str:
    """Which of `KINDS` a task-server URL is."""
    if url.endswith("/submit"):
        return "submit"
    if "?participant=" in url:
        return "entry"
    if "/done/" in url:
        return "done"
    return "page"


def refusal_reason(page: str) -> str:
    """The reason a message page gives (its first paragraph), in short."""
    found = _REASON.search(page)
    return html.unescape(found.group(1) if found else page)[:70]


class TimedSession(Browser):
    """A worker's browser: times task-server requests, and retries what a person would (a cut
    connection or a 5xx: reload, submit again). Platform calls reuse a kept-alive connection;
    task-server requests each open a new one (see `request`). ``refused`` is the reason the
    last entry was refused (None when it was let in), for the worker's loop to read."""

    def __init__(self, timings: Timings) -> None:
        super().__init__()
        self.timings = timings
        self.refused: str | None = None

    def request(
        self,
        method: str,
        url: str,
        params: Any = None,
        data: Any = None,
        headers: Any = None,
    ) -> Reply:
        if not url.startswith(self.timings.serve_url):  # the platform's worker side
            call = url.rstrip("/").rsplit("/", 1)[-1]
            for attempt in range(RETRIES - 1):
                try:
                    start = time.perf_counter()
                    reply = super().request(method, url, params, data, headers)
                    with self.timings.lock:
                        self.timings.platform.setdefault(call, []).append(
                            time.perf_counter() - start
                        )
                    return reply
                except urllib3.exceptions.HTTPError as exc:  # refused, cut
                    self._error(f"platform (not the task server): {type(exc).__name__}")
                    time.sleep(0.2 * (attempt + 1))
            return super().request(method, url, params, data, headers)
        kind = request_kind(url)
        if kind == "entry":
            self.refused = None
        # a new connection per request, as the reverse proxy in front of the task server opens
        # them (nginx's default); a browser's reused keep-alive connection the server closed
        # meanwhile is retried by the browser and never seen
        headers = {**(headers or {}), "Connection": "close"}
        response = None
        for attempt in range(RETRIES):
            start = time.perf_counter()
            try:
                response = super().request(method, url, params, data, headers)
            except urllib3.exceptions.HTTPError as exc:  # cut: before or in the middle of it
                self._error(f"{kind}: {type(exc).__name__} {str(exc)[-60:]}")
                time.sleep(0.2 * (attempt + 1))
                continue
            spent = time.perf_counter() - start
            if response.status_code >= 500:
                self._error(f"{kind}: HTTP {response.status_code}")
                time.sleep(0.2 * (attempt + 1))
                continue
            self._timed(kind, spent, response, data)
            return response
        return response or super().request(method, url, params, data, headers)

    def _timed(self, kind: str, spent: float, response: Reply, data: Any) -> None:
        if kind == "entry" and response.status_code != 303:
            self.refused = f"{response.status_code} {refusal_reason(response.text)}"
        with self.timings.lock:
            getattr(self.timings, kind).append(spent)
            if kind == "submit" and response.status_code == 200:
                self.timings.acknowledged.add(str((data or {}).get("assignmentId")))
                self.timings.last_stored = time.perf_counter()
            if self.refused is not None and kind == "entry":
                self.timings.refusals[self.refused] += 1

    def _error(self, what: str) -> None:
        with self.timings.lock:
            self.timings.errors[what] += 1
