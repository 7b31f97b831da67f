"""The random keys a store makes and keeps for itself.

A store's key (e.g. the one that signs task pages, `harness.web.tokens`) is made on first use
and kept in the ``store_secret`` table: no key lives in code or in a config file, and two
stores never share one. (Masking secrets in what harness prints: `harness.masking`.)
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from sqlmodel import Session

from harness.store.models import StoreSecret

PAGE_KEY = "page-token-key"
"""The key that signs the task pages' tokens."""


def store_secret(session: Session, name: str) -> str:
    """The store's secret called ``name``, made (256 random bits) and committed on first use.

    Two processes making it at once: one insert wins, the other reads the winner's."""
    found = session.get(StoreSecret, name)
    if found is not None:
        return found.value
    made = secrets.token_urlsafe(32)
    try:
        with session.begin_nested():
            session.add(StoreSecret(name=name, value=made))
    except sa.exc.IntegrityError:
        session.expire_all()
        raced = session.get(StoreSecret, name)
        assert raced is not None
        return raced.value
    return made
