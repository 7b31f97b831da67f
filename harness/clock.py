"""The one clock harness reads: the current time, timezone-aware in UTC.

Every "now" in harness comes from `utcnow`, so a test can move time for all of harness at
once (the suite freezes or shifts it with time-machine; CI reruns it a year ahead).
"""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)
