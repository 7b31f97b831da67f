"""A lean HTTP client for the load test's simulated workers (scripts/load_test.py).

It does what `harness.simulate.driver` asks of its ``http`` (``get(url, params=...)``,
``post(url, data=..., headers=...)``, answers with ``status_code``, ``text``, ``json()``,
``raise_for_status()``) straight on urllib3, without requests' per-call work (proxy settings
read from the environment, cookie jars, hooks): that work was most of the crowd's CPU, which
shares the machine with the servers it measures. The servers set no cookies.

Each worker keeps one kept-alive connection to each server; a request may ask for its
connection to be closed after the answer (``Connection: close``), as the task server's requests
do in the load test. A kept-alive connection the server has closed meanwhile is noticed before
it is used, and a new one is opened.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import urllib3

FORM = "application/x-www-form-urlencoded"


class HTTPStatusError(Exception):
    """An answer with a 4xx or 5xx status, raised by `Reply.raise_for_status`."""


class Reply:
    """An answer, read whole."""

    def __init__(self, status: int, content: bytes) -> None:
        self.status_code = status
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.status_code < 400

    def json(self) -> Any:
        return json.loads(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise HTTPStatusError(f"HTTP {self.status_code}: {self.text[:200]}")


class Browser:
    """One worker's client: a connection pool of one per server it talks to."""

    def __init__(self, timeout: float = 60.0) -> None:
        self._pools: dict[str, urllib3.HTTPConnectionPool] = {}
        self._timeout = urllib3.Timeout(total=timeout)

    def _pool(self, netloc: str) -> urllib3.HTTPConnectionPool:
        pool = self._pools.get(netloc)
        if pool is None:
            host, _, port = netloc.rpartition(":")
            pool = urllib3.HTTPConnectionPool(
                host, int(port), maxsize=1, block=False, retries=False, timeout=self._timeout
            )
            self._pools[netloc] = pool
        return pool

    def send(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """One request; urllib3's errors (a refused or cut connection, a timeout) propagate."""
        parts = urlsplit(url)
        target = parts.path + ("?" + parts.query if parts.query else "")
        answer = self._pool(parts.netloc).urlopen(
            method,
            target or "/",
            body=body,
            headers=dict(headers or {}),
            redirect=False,
            preload_content=True,
        )
        return Reply(answer.status, answer.data)

    def request(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        body = None
        if data is not None:
            body = urlencode(data).encode()
            headers = {"Content-Type": FORM, **(headers or {})}
        return self.send(method, url, body, headers)

    def get(self, url: str, params: Mapping[str, Any] | None = None, **kw: Any) -> Reply:
        return self.request("GET", url, params=params, **kw)

    def post(self, url: str, data: Mapping[str, Any] | None = None, **kw: Any) -> Reply:
        return self.request("POST", url, data=data, **kw)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
