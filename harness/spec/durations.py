"""Durations in specs: whole seconds, or text like ``90s``, ``30m``, ``2h``, ``7d``."""

from __future__ import annotations

import re

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PATTERN = re.compile(r"^\s*([0-9]{1,12})\s*([smhdw]?)\s*$")
MAX_SECONDS = 366 * 86400
"""A year: longer than any duration a platform takes (MTurk's lifetime is at most a year)."""


def parse_duration(value: object) -> int:
    """Seconds in ``value``; raises ValueError with the accepted forms otherwise."""
    if isinstance(value, bool):
        raise ValueError("expected a duration such as 3600, 30m, 2h or 7d")
    if isinstance(value, int):
        seconds = value
    else:
        match = _PATTERN.match(str(value))
        if not match:
            raise ValueError(f"expected a duration such as 3600, 30m, 2h or 7d, got {value!r}")
        seconds = int(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds <= 0:
        raise ValueError("a duration must be positive")
    if seconds > MAX_SECONDS:
        raise ValueError(f"a duration must be at most 366d, got {value!r}")
    return seconds
