"""Times for tests, always counted from the current time: no test takes a calendar date as
"now", so the suite passes on any date (CI runs it a second time a year ahead)."""

from __future__ import annotations

from datetime import datetime, timedelta

from harness.clock import utcnow


def minutes_ago(minutes: float = 30) -> datetime:
    """A whole-second instant ``minutes`` before now (UTC): answers shown then fall within the
    time any task launched by the test was open, give or take the server's allowed skew."""
    return utcnow().replace(microsecond=0) - timedelta(minutes=minutes)
