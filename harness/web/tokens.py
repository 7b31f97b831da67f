"""Signed page tokens: a task page carries a token binding its HIT, assignment and worker, and
a submission without the token of the page it came from is refused.

The token is an HMAC-SHA256 under the store's own key (`harness.store.secrets`, made on first
use and kept in the store): nobody without the store can make one, so a submission cannot
name ids that no page was served for, nor mix one page's assignment with another worker;
another site cannot read it out of a worker's page, which makes it the form's CSRF token too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import threading

import sqlalchemy as sa

from harness.store.database import session_scope
from harness.store.secrets import PAGE_KEY, store_secret

FIELD = "pageToken"
"""The form field a page posts its token in."""


class PageKeys:
    """The store's page key, read once per process (thread-safe)."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def key(self) -> bytes:
        with self._lock:
            if self._key is None:
                with session_scope(self._engine) as session:
                    self._key = store_secret(session, PAGE_KEY).encode()
            return self._key

    def sign(self, scope: str, *, unit: str, assignment_id: str, worker_id: str) -> str:
        """The token of a page of ``unit`` (a HIT key, or a study's session page) served to
        ``worker_id`` for ``assignment_id``; ``scope`` keeps tokens of different page kinds
        apart."""
        message = "\x1f".join((scope, unit, assignment_id, worker_id)).encode()
        digest = hmac.new(self.key(), message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def valid(
        self, token: str, scope: str, *, unit: str, assignment_id: str, worker_id: str
    ) -> bool:
        """Whether ``token`` is the one `sign` gives for these ids (constant-time compare)."""
        expected = self.sign(scope, unit=unit, assignment_id=assignment_id, worker_id=worker_id)
        return hmac.compare_digest(expected.encode(), token.encode())


_IN_PAGE = re.compile(r'"pageToken":\s*"([A-Za-z0-9_-]*)"')


def token_in_page(html: str) -> str:
    """The token a task page carries ("" when none: a preview), as a program posting for a
    worker (simulated workers, tests) reads it."""
    found = _IN_PAGE.search(html)
    return found[1] if found else ""
