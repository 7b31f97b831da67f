"""The consent a participant gives before the first item: what the store keeps of it, shared
like `harness.answer` by render (which reads it from a page), platform and store."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Consent:
    """The consent given: the SHA-256 of the text agreed to, and when."""

    text_hash: str
    given_at: datetime


def consent_hash(text: str) -> str:
    """Hex SHA-256 of a consent text, as the page shows and posts it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
