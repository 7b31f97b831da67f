"""Pacing for scripts/load_test.py: assignments started at a set rate over the whole crowd.

Why: in a closed loop (every simulated worker starts its next assignment the moment the last one
ends, as `load_test.py` does without ``--rate``) the servers are always saturated, and Little's
law fixes the latency: N workers doing X assignments per second spend N / X seconds on each
assignment, whatever the servers do. 200 such workers at 100 assignments/s spend 2 s on each
assignment's five requests, so a page and a submission p99 under 500 ms cannot be shown that
way below about 400 assignments/s. People pause between assignments (they read, they think),
so a real burst offers a rate; the servers' latency at an offered rate is the question the
latency goal asks. `Pacer` offers it: assignment starts are slots at a fixed interval from the
first one (an open loop); a worker free before its slot waits for it, and a slot no worker was
free for is started late and counted, so a rate the servers could not keep up with shows as
late starts instead of being hidden (coordinated omission).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

LATE = 0.1
"""Seconds after its slot from which a start counts as late in the report."""


@dataclass
class Pacer:
    """Slots for assignment starts, ``rate`` per second across every worker thread."""

    rate: float
    clock: Callable[[], float] = time.perf_counter
    sleep: Callable[[float], None] = time.sleep
    late: list[float] = field(default_factory=list)  # seconds each start was after its slot
    _next: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise ValueError(f"--rate: assignments per second must be above 0, not {self.rate}")

    def wait(self) -> float:
        """Take the next slot and wait until it comes (at once when it has passed); how late
        the start is, in seconds, for `started`."""
        with self._lock:
            now = self.clock()
            slot = now if self._next is None else self._next
            self._next = slot + 1 / self.rate
        delay = slot - self.clock()
        if delay > 0:
            self.sleep(delay)
        return max(0.0, -delay)

    def started(self, late: float) -> None:
        """An assignment started in the slot `wait` gave (a worker who found no HIT left in its
        slot started none, and is not counted)."""
        with self._lock:
            self.late.append(late)

    def summary(self) -> str:
        """How well the offered rate was kept: starts, and those late by more than `LATE`."""
        late = [s for s in self.late if s > LATE]
        worst = max(self.late, default=0.0)
        return (
            f"offered {self.rate:g} assignment starts/s: {len(self.late)} starts, {len(late)} "
            f"more than {LATE * 1000:.0f} ms late (worst {worst * 1000:.0f} ms)"
            + ("" if not late else ": the servers did not keep up with the offered rate")
        )


def littles_law(workers: int, rate: float) -> str:
    """What a closed loop's latency must be, by Little's law, at the rate it reached."""
    if rate <= 0:
        return "closed loop: no assignment finished"
    return (
        f"closed loop (no pause between assignments): {workers} workers at {rate:.1f}/s spend "
        f"{workers / rate:.2f} s on each assignment's requests by Little's law, whatever the "
        "servers do; latency goals are measured with --rate"
    )
