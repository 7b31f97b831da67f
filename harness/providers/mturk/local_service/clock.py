"""A controllable clock: real time plus an offset, or a frozen instant.

Expiry, assignment deadlines and auto-approval are evaluated lazily against this clock on every
request, so tests move time with the control endpoint instead of sleeping. The clock only ever
reads a finite time between 1970 and 9999 (what a timestamp in an MTurk reply can hold): moves
outside that are refused, and a saved reading outside it (a file written before these checks) is
dropped when the service starts.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

LATEST = 253402300799.0  # 9999-12-31T23:59:59Z


class ClockError(ValueError):
    """A clock reading or move the service refuses; the message says why."""


def check_time(value: float, what: str) -> float:
    if not math.isfinite(value) or not 0 <= value <= LATEST:
        raise ClockError(
            f"{what} must be a time between 1970 and 9999 in epoch seconds, got {value}"
        )
    return value


@dataclass
class Clock:
    offset: float = 0.0
    frozen_at: float | None = None

    def now(self) -> float:
        return self.frozen_at if self.frozen_at is not None else time.time() + self.offset

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    def advance(self, seconds: float) -> None:
        """Move the clock by `seconds` (negative moves it back), staying within 1970-9999."""
        check_time(self.now() + seconds, "the clock after advancing")
        if self.frozen_at is not None:
            self.frozen_at += seconds
        else:
            self.offset += seconds

    def set(self, epoch_seconds: float, frozen: bool = False) -> None:
        check_time(epoch_seconds, "the time to set")
        if frozen:
            self.frozen_at = epoch_seconds
        else:
            self.frozen_at = None
            self.offset = epoch_seconds - time.time()

    def saved(self) -> dict[str, Any]:
        return {"offset": self.offset, "frozen_at": self.frozen_at}

    @classmethod
    def restore(cls, saved: Any) -> Clock:
        """The clock saved by `saved()`; ClockError if the saved reading is not a valid time."""
        if not isinstance(saved, dict) or set(saved) != {"offset", "frozen_at"}:
            raise ClockError(f"the saved clock is not a clock: {saved!r}")
        offset, frozen = saved["offset"], saved["frozen_at"]
        for value in (offset, frozen):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if value is not None and not number:
                raise ClockError(f"the saved clock holds a non-number: {saved!r}")
        if offset is None or not math.isfinite(offset):
            raise ClockError(f"the saved clock's offset is not finite: {saved!r}")
        clock = cls(offset=float(offset), frozen_at=None if frozen is None else float(frozen))
        check_time(clock.now(), "the saved clock")
        return clock
