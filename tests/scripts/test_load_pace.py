"""The load test's pacing (scripts/load_pace.py): starts at an offered rate, late ones counted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from load_pace import Pacer, littles_law  # noqa: E402


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_starts_are_spaced_by_the_rate_when_workers_are_free() -> None:
    clock = FakeClock()
    pacer = Pacer(4.0, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(5):
        pacer.started(pacer.wait())
        starts.append(clock.now)
    assert starts == pytest.approx([100.0, 100.25, 100.5, 100.75, 101.0])
    assert "0 more than 100 ms late" in pacer.summary()


def test_a_slot_no_worker_was_free_for_starts_at_once_and_counts_as_late() -> None:
    clock = FakeClock()
    pacer = Pacer(10.0, clock=clock, sleep=clock.sleep)
    pacer.started(pacer.wait())
    clock.now += 0.5  # every worker busy for half a second: four slots passed meanwhile
    before = clock.now
    pacer.started(pacer.wait())
    assert clock.now == before  # no waiting for a slot that has passed
    assert pacer.late[-1] == pytest.approx(0.4)
    assert "1 more than 100 ms late (worst 400 ms): the servers did not keep up" in pacer.summary()


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="--rate"):
        Pacer(0.0)


def test_a_closed_loops_latency_is_fixed_by_littles_law() -> None:
    assert "200 workers at 100.0/s spend 2.00 s" in littles_law(200, 100.0)


def test_a_slot_in_which_no_assignment_started_is_not_counted() -> None:
    clock = FakeClock()
    pacer = Pacer(10.0, clock=clock, sleep=clock.sleep)
    pacer.started(pacer.wait())
    pacer.wait()  # the worker found no HIT left for them
    assert "1 starts" in pacer.summary()
