"""Fault switches for tests: throttling, ServiceUnavailable, added latency.

Set them with `harness mturk-local` options or `POST /_control/faults`. They apply to the
requester API only. Draws come from a seeded generator so a test run repeats.

- throttle_rate: a request gets ThrottlingException when this many requests were already let
  through in the last second (refused requests do not use up the rate).
- throttle_share: this share of requests (0 to 1) gets ThrottlingException.
- unavailable_share: this share of requests gets ServiceUnavailable (HTTP 503).
- latency_ms: every request waits this long first (0 to 60,000).
- seed: the seed of the random draws (a whole number).

Every value is checked when it is set (a finite number in its range), so a switch can never
turn later requests into server errors.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from harness.providers.mturk.local_service.api_errors import ServiceUnavailable, ThrottlingException


@dataclass
class FaultSwitches:
    throttle_rate: float | None = None
    throttle_share: float = 0.0
    unavailable_share: float = 0.0
    latency_ms: float = 0.0
    seed: int = 0
    _random: random.Random = field(default_factory=random.Random, repr=False)
    _recent: deque[float] = field(default_factory=deque, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _clock: Callable[[], float] = field(default=time.monotonic, repr=False)  # a test's own

    def __post_init__(self) -> None:
        self._random.seed(self.seed)

    def settings(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}

    def update(self, values: dict[str, Any]) -> None:
        """Change the switches named in `values`; unknown names or bad values raise ValueError."""
        names = {f.name for f in fields(self) if not f.name.startswith("_")}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(
                f"unknown fault switch(es): {', '.join(unknown)}; known: {sorted(names)}"
            )
        for name, value in values.items():
            _check(name, value)
        with self._lock:
            for name, value in values.items():
                setattr(self, name, value)
            if "seed" in values:
                self._random.seed(self.seed)

    def check(self) -> None:
        """Apply the switches to one request: wait, then maybe refuse it."""
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)
        with self._lock:
            self._draw()

    def _draw(self) -> None:
        now = self._clock()
        while self._recent and self._recent[0] <= now - 1.0:
            self._recent.popleft()
        if self.throttle_rate is not None and len(self._recent) >= self.throttle_rate:
            raise ThrottlingException("Rate exceeded")
        if self.throttle_share and self._random.random() < self.throttle_share:
            raise ThrottlingException("Rate exceeded")
        if self.unavailable_share and self._random.random() < self.unavailable_share:
            raise ServiceUnavailable("Service Unavailable")
        self._recent.append(now)


LIMITS = {
    "throttle_rate": (0.0, 1e9),
    "throttle_share": (0.0, 1.0),
    "unavailable_share": (0.0, 1.0),
    "latency_ms": (0.0, 60_000.0),
}


def _check(name: str, value: Any) -> None:
    """Refuse a switch value that is not a finite number in the switch's range."""
    if name == "throttle_rate" and value is None:
        return  # no rate limit
    if name == "seed":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
            raise ValueError(f"seed must be a whole number from 0 to 2**63-1, got {value!r}")
        return
    low, high = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g}, got {value}")
