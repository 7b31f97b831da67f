"""Prolific's hooks (webhooks): verify a delivery's signature, read it as events.

A delivery carries ``X-Prolific-Request-Signature`` and ``X-Prolific-Request-Timestamp``; the
signature is the base64 of HMAC-SHA256 over the timestamp followed by the body, keyed with the
workspace's hook secret (Prolific's "Verifying" page). A ``submission.status.change`` event names
the submission (``resource_id``); sync looks it up (a hook says what happened, the API what is
true now), so polling (`harness sync`) and hooks store the same.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import time
from typing import Any
from urllib.parse import urlsplit

from harness.platform.contract import EventTopic, PlatformEvent
from harness.platform.local_service import is_loopback

MAX_AGE = 300  # seconds a delivery's timestamp may be old (replays are refused)
SUBMISSION_EVENT = "submission.status.change"
SIGNATURE = "X-Prolific-Request-Signature"
TIMESTAMP = "X-Prolific-Request-Timestamp"


def loopback(url: str) -> bool:
    """Whether ``url`` is http(s) to this machine (127.0.0.0/8, ::1, localhost)."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and is_loopback(parts.hostname)


def public_https(url: str) -> bool:
    """Whether Prolific can post to ``url``: https, to a name or a public address (its
    documentation: "must use https:// and be publicly accessible")."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme != "https" or not host or host == "localhost" or "." not in host:
        return False
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return True  # a name: whether it resolves publicly is the researcher's to make true


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def fresh(timestamp: str, now: float | None = None) -> bool:
    """Whether a delivery's timestamp is a number within `MAX_AGE` of now."""
    try:
        age = (now if now is not None else time.time()) - float(timestamp)
    except ValueError:
        return False
    return abs(age) <= MAX_AGE


def verified(
    secret: str, timestamp: str, body: bytes, given: str, now: float | None = None
) -> bool:
    """Whether a delivery is Prolific's: a good signature on a recent timestamp."""
    if not fresh(timestamp, now):
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), given)


def events(body: str) -> list[PlatformEvent]:
    """A delivery's body as events: a submission's status change names the submission (the
    study is its unit); anything else is `EventTopic.OTHER`."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    if data.get("event_type") == SUBMISSION_EVENT and data.get("resource_id"):
        return [PlatformEvent(EventTopic.SUBMISSION, data.get("study_id"), data["resource_id"])]
    return [PlatformEvent(EventTopic.OTHER, data.get("study_id"))]
