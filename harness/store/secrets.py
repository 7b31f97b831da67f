"""The random keys a store makes and keeps for itself.

A store's key (e.g. the one that signs task pages, `harness.web.tokens`) is made on first use
and kept in the ``store_secret`` table: no key lives in code or in a config file, and two
stores never share one. (Masking secrets in what harness prints: `harness.masking`.)
"""

from __future__ import annotations

import secrets

from sqlmodel import Session

from harness.clock import utcnow
from harness.store.models import StoreSecret
from harness.store.received import insert_or_read

PAGE_KEY = "page-token-key"
"""The key that signs the task pages' tokens."""


def store_secret(session: Session, name: str) -> str:
    """The store's secret called ``name``, made (256 random bits) on first use.

    Two processes making it at once: one insert wins, the other reads the winner's."""
    found = session.get(StoreSecret, name)
    if found is not None:
        return found.value
    values = {"name": name, "value": secrets.token_urlsafe(32), "created_at": utcnow()}
    return insert_or_read(session, StoreSecret, values, name=name)[0].value
