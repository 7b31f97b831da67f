"""Secrets: the random keys a store makes and keeps for itself, and masking secrets out of
anything harness prints or logs.

A store's key (e.g. the one that signs task pages, `harness.web.tokens`) is made on first use
and kept in the ``store_secret`` table: no key lives in code or in a config file, and two
stores never share one. `mask_secrets` hides database passwords, AWS keys and API tokens in
text before it reaches a terminal or a log.
"""

from __future__ import annotations

import re
import secrets

import sqlalchemy as sa
from sqlmodel import Session

from harness.store.models import StoreSecret

PAGE_KEY = "page-token-key"
"""The key that signs the task pages' tokens."""

MASK = "***"


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


_URL_PASSWORD = re.compile(
    r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)(?P<secret>[^@\s/]+)(?=@)", re.I
)
_AWS_KEY_ID = re.compile(r"\b(?P<head>(?:AKIA|ASIA)[A-Z0-9]{4})(?P<secret>[A-Z0-9]{12})\b")
_NAMED = re.compile(
    r"(?P<head>\b(?:aws_secret_access_key|aws_session_token|secret_access_key|"
    r"secretaccesskey|api[_-]?token|token|password|passwd|authorization)\b[\"']?\s*[:=]\s*"
    r"[\"']?(?:Token\s+|Bearer\s+)?)(?P<secret>[^\s\"',;&]+)",
    re.I,
)
_BEARER = re.compile(r"(?P<head>\b(?:Token|Bearer)\s+)(?P<secret>[A-Za-z0-9._~+/=-]{12,})")


def mask_secrets(text: str) -> str:
    """``text`` with passwords in URLs, AWS access key ids, and named secrets (``password=``,
    ``token:``, ``aws_secret_access_key=``, ``Authorization: Token ...``) replaced by ``***``
    (an AWS key id keeps its first 8 characters, so a person can tell which key it was)."""
    text = _URL_PASSWORD.sub(lambda m: m["head"] + MASK, text)
    text = _AWS_KEY_ID.sub(lambda m: m["head"] + MASK, text)
    text = _NAMED.sub(lambda m: m["head"] + MASK, text)
    return _BEARER.sub(lambda m: m["head"] + MASK, text)
