"""One HTTP client for Prolific's API v1 (or the local service), configured by endpoint.

``Authorization: Token <token>``; every call has a timeout. Retries: a 429 is retried for every
call after its ``Retry-After`` (the request was refused before it did anything); a 5xx or a lost
connection only for calls that are safe to repeat (reads, and writes whose repeat changes
nothing: a transition, setting a total, adding group members). Creating (a study, a group, a
bonus) and paying a bonus are never repeated blindly: the caller looks first.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import requests

from harness.errors import InputError, PlatformError

PRODUCTION = "https://api.prolific.com"
TOKEN_ENV = "PROLIFIC_API_TOKEN"
TIMEOUT = (5.0, 30.0)  # connect, read (seconds)


class ProlificError(PlatformError):
    """Prolific refused a call (status and Prolific's detail) or could not be reached."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Uncertain(ProlificError):
    """The call may or may not have taken effect (5xx, lost connection): look before repeating."""


@dataclass
class ProlificClient:
    base_url: str
    token: str
    attempts: int = 8
    max_wait: float = 5.0
    sleep: Callable[[float], None] = time.sleep
    http: requests.Session = field(default_factory=requests.Session)

    def call(
        self,
        method: str,
        path: str,
        *,
        safe: bool,
        json: Any = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        """One call; its JSON answer (None for an empty one)."""
        answer = self.response(method, path, safe=safe, json=json, params=params)
        return answer.json() if answer.content else None

    def response(
        self,
        method: str,
        path: str,
        *,
        safe: bool,
        json: Any = None,
        params: dict[str, Any] | None = None,
    ) -> requests.Response:
        """One call; the whole answer (for a header, e.g. a hook subscription's secret)."""
        url = path if path.startswith("http") else f"{self.base_url}/api/v1/{path.lstrip('/')}"
        for attempt in range(self.attempts):
            try:
                answer = self.http.request(
                    method,
                    url,
                    json=json,
                    params=params,
                    timeout=TIMEOUT,
                    headers={"Authorization": f"Token {self.token}"},
                )
            except requests.RequestException as exc:
                if not safe or attempt == self.attempts - 1:
                    raise Uncertain(f"could not reach Prolific ({method} {path}): {exc}") from exc
                self.sleep(self._backoff(attempt))
                continue
            if answer.status_code == 429 and attempt < self.attempts - 1:
                self.sleep(min(self.max_wait, _retry_after(answer) or self._backoff(attempt)))
                continue
            if answer.status_code >= 500:
                if safe and attempt < self.attempts - 1:
                    self.sleep(self._backoff(attempt))
                    continue
                raise Uncertain(_message(answer, method, path), answer.status_code)
            if answer.status_code >= 400:
                raise ProlificError(_message(answer, method, path), answer.status_code)
            return answer
        raise ProlificError(f"Prolific kept refusing {method} {path} (rate limited)", 429)

    def pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every result of a list, following ``_links.next.href``."""
        page: Any = self.call("GET", path, safe=True, params=(params or {}) | {"page_size": 100})
        while True:
            yield from page.get("results", [])
            nxt = ((page.get("_links") or {}).get("next") or {}).get("href")
            if not nxt:
                return
            page = self.call("GET", nxt, safe=True)

    def _backoff(self, attempt: int) -> float:
        return random.uniform(0, min(self.max_wait, 0.1 * 2**attempt))


def _retry_after(answer: requests.Response) -> float | None:
    try:
        return float(answer.headers.get("Retry-After", ""))
    except ValueError:
        return None


def _message(answer: requests.Response, method: str, path: str) -> str:
    try:
        error = answer.json().get("error", {})
        detail = error.get("detail", answer.text)
    except ValueError:
        detail = answer.text[:200]
    return f"Prolific answered {answer.status_code} to {method} {path}: {detail}"


def make_client(local_endpoint: str | None) -> ProlificClient:
    """The client of the local service at ``local_endpoint`` (any token), or, without one, of
    Prolific's API (with $PROLIFIC_API_TOKEN); `ProlificPlatform.endpoint` resolves it."""
    if local_endpoint is not None:
        return ProlificClient(local_endpoint, "local")
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise InputError(
            f"set ${TOKEN_ENV} to an API token of your Prolific workspace (Settings, API "
            "tokens); harness never stores it"
        )
    return ProlificClient(PRODUCTION, token)
