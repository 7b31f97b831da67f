"""Fault switches for tests: throttling, ServiceUnavailable, added latency.

Set them with `harness mturk-local` options or `POST /_control/faults`. They apply to the
requester API only. Draws come from a seeded generator so a test run repeats.

- throttle_rate: a request gets ThrottlingException when this many requests were already let
  through in the last second (refused requests do not use up the rate).
- throttle_share: this share of requests (0 to 1) gets ThrottlingException.
- unavailable_share: this share of requests gets ServiceUnavailable (HTTP 503).
- latency_ms: every request waits this long first.
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from harness.platform.mturk_local.api_errors import ServiceUnavailable, ThrottlingException


@dataclass
class FaultSwitches:
    throttle_rate: float | None = None
    throttle_share: float = 0.0
    unavailable_share: float = 0.0
    latency_ms: float = 0.0
    seed: int = 0
    _random: random.Random = field(default_factory=random.Random, repr=False)
    _recent: deque[float] = field(default_factory=deque, repr=False)

    def __post_init__(self) -> None:
        self._random.seed(self.seed)

    def settings(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}

    def update(self, values: dict[str, Any]) -> None:
        """Change the switches named in `values`; unknown names or bad values raise ValueError."""
        names = {f.name for f in fields(self) if not f.name.startswith("_")}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(
                f"unknown fault switch(es): {', '.join(unknown)}; known: {sorted(names)}"
            )
        for name, value in values.items():
            if value is not None and not isinstance(value, int | float):
                raise ValueError(f"{name} must be a number, got {value!r}")
            if name.endswith("_share") and (value is None or not 0 <= value <= 1):
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
            setattr(self, name, value)
        if "seed" in values:
            self._random.seed(self.seed)

    def check(self) -> None:
        """Apply the switches to one request: wait, then maybe refuse it."""
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)
        now = time.monotonic()
        while self._recent and self._recent[0] <= now - 1.0:
            self._recent.popleft()
        if self.throttle_rate is not None and len(self._recent) >= self.throttle_rate:
            raise ThrottlingException("Rate exceeded")
        if self.throttle_share and self._random.random() < self.throttle_share:
            raise ThrottlingException("Rate exceeded")
        if self.unavailable_share and self._random.random() < self.unavailable_share:
            raise ServiceUnavailable("Service Unavailable")
        self._recent.append(now)
