"""A controllable clock: real time plus an offset, or a frozen instant.

Expiry, assignment deadlines and auto-approval are evaluated lazily against this clock on every
request, so tests move time with the control endpoint instead of sleeping.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class Clock:
    offset: float = 0.0
    frozen_at: float | None = None

    def now(self) -> float:
        return self.frozen_at if self.frozen_at is not None else time.time() + self.offset

    def advance(self, seconds: float) -> None:
        if self.frozen_at is not None:
            self.frozen_at += seconds
        else:
            self.offset += seconds

    def set(self, epoch_seconds: float, frozen: bool = False) -> None:
        if frozen:
            self.frozen_at = epoch_seconds
        else:
            self.frozen_at = None
            self.offset = epoch_seconds - time.time()
