"""Arrivals on a study link and everything that changes what they decide from, at once, on
SQLite and PostgreSQL: arrivals do not wait for a screening pass (they take the lock of the
study's places, `harness.store.locks.lock_places`, not the study's); a block, a pause and a
slot the platform frees each take the places lock, so an arrival is decided wholly before or
wholly after them: nobody is given a place after their block or the pause is committed, and a
freed slot goes to one newcomer; and all of them at once, with screening holding the study's
lock, finish (the locks are taken in one order, before any write)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import col, select

from harness.platform.actions import block_worker
from harness.platform.pause import pause_study, resume_study
from harness.platform.registry import provider_for
from harness.store import launched_study, make_engine, session_scope
from harness.store.allocation import (
    Allocation,
    Refusal,
    Refused,
    release,
    settle,
)
from harness.store.arm_assignment import allocate_in_arm
from harness.store.events import EventKind, record_event
from harness.store.locks import lock_places, lock_study
from harness.store.models import Assignment, AssignmentStatus, Event, Slot, SlotState, Worker
from tests.platform.test_pause import launched_link
from tests.store.test_allocation import slot_counts

HOLD = timedelta(minutes=30)
WAIT = 0.5  # seconds a thread is given to show it is waiting for a lock


@pytest.fixture
def link(tmp_path: Path, database_url: str) -> Any:
    """An engine on a launched study link of 4 HITs x 2 raters (8 places), and its id."""
    launched_link(tmp_path, database_url)
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study_id = launched_study(session, "small").id
    yield engine, study_id
    engine.dispose()


class Running:
    """A function run in a thread of its own: its result or its error, once it ends."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self.thread.start()

    def _run(self, work: Callable[[], Any]) -> None:
        try:
            self.result = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test by `outcome`
            self.error = exc

    def waiting(self) -> bool:
        self.thread.join(timeout=WAIT)
        return self.thread.is_alive()

    def outcome(self, timeout: float = 30) -> Any:
        self.thread.join(timeout=timeout)
        assert not self.thread.is_alive(), "still waiting"
        if self.error is not None:
            raise self.error
        return self.result


def arrive(engine: sa.Engine, study_id: int, worker: str) -> Allocation | Refused:
    """A participant at the study link's entry (committed)."""
    with session_scope(engine) as session:
        return allocate_in_arm(session, study_id, worker, None, hold=HOLD, paused_stops_new=True)


def block(engine: sa.Engine, worker: str) -> bool:
    with session_scope(engine) as session:
        running = launched_study(session, "small")
        return block_worker(session, provider_for(running), running, worker, "screening H3")


def test_an_arrival_does_not_wait_for_a_screening_pass(link):
    engine, study_id = link
    with session_scope(engine) as screening:
        lock_study(screening, study_id)  # a scoring pass holds the study's lock meanwhile
        arrival = Running(lambda: arrive(engine, study_id, "W1"))
        assert not arrival.waiting(), "the arrival waited for screening"
        assert isinstance(arrival.outcome(), Allocation)


def test_a_block_waits_for_an_arrival_under_way_and_refuses_the_worker_after_it(link):
    engine, study_id = link
    with session_scope(engine) as arriving:
        got = allocate_in_arm(arriving, study_id, "W1", None, hold=HOLD, paused_stops_new=True)
        assert isinstance(got, Allocation)
        blocking = Running(lambda: block(engine, "W1"))
        assert blocking.waiting(), "the block was recorded while the arrival was deciding"
    assert blocking.outcome() is True
    with session_scope(engine) as session:
        reserved = session.exec(
            select(Slot.reserved_at).where(Slot.state == SlotState.RESERVED)
        ).one()
        blocked = session.exec(select(Event.at).where(Event.kind == EventKind.BLOCKED)).one()
        assert reserved < blocked  # the place was given before the block, not after
    with session_scope(engine) as session:  # W1 submits the place given before the block
        assert settle(session, got.session_ref)
    refused = arrive(engine, study_id, "W1")  # and gets no other
    assert isinstance(refused, Refused) and refused.reason is Refusal.BLOCKED
    with session_scope(engine) as session:
        assert slot_counts(session, study_id) == {"open": 7, "reserved": 0, "submitted": 1}


def test_an_arrival_waiting_while_a_block_is_committed_is_refused(link):
    engine, study_id = link
    with session_scope(engine) as blocking:  # the block's last transaction, as block_worker
        lock_places(blocking, study_id)
        record_event(blocking, EventKind.BLOCKED, study_id=study_id, subject="W1")
        arrival = Running(lambda: arrive(engine, study_id, "W1"))
        assert arrival.waiting(), "the arrival did not wait for the block being recorded"
    refused = arrival.outcome()
    assert isinstance(refused, Refused) and refused.reason is Refusal.BLOCKED
    with session_scope(engine) as session:
        assert slot_counts(session, study_id)["reserved"] == 0


def test_a_pause_waits_for_an_arrival_under_way_and_stops_the_next_newcomer(link):
    engine, study_id = link
    with session_scope(engine) as arriving:
        assert isinstance(
            allocate_in_arm(arriving, study_id, "W1", None, hold=HOLD, paused_stops_new=True),
            Allocation,
        )

        def pause() -> bool:
            with session_scope(engine) as session:
                running = launched_study(session, "small")
                return pause_study(session, provider_for(running), running, "a person")

        pausing = Running(pause)
        assert pausing.waiting(), "the pause was committed while an arrival was deciding"
    assert pausing.outcome() is True
    newcomer = arrive(engine, study_id, "W2")
    assert isinstance(newcomer, Refused) and newcomer.reason is Refusal.PAUSED
    under_way = arrive(engine, study_id, "W1")
    assert isinstance(under_way, Allocation) and under_way.resumed


def test_slots_the_platform_frees_while_participants_arrive_each_go_to_one_newcomer(link):
    engine, study_id = link
    first = [arrive(engine, study_id, f"W{i}") for i in range(8)]
    assert all(isinstance(a, Allocation) for a in first)
    assert isinstance(arrive(engine, study_id, "late"), Refused)  # full
    freed = [a.session_ref for a in first[:3] if isinstance(a, Allocation)]

    def give_back(ref: str) -> bool:
        with session_scope(engine) as session:
            return release(session, ref, AssignmentStatus.RETURNED, "returned")

    start = threading.Barrier(9)
    runs = [Running(lambda r=r: (start.wait(), give_back(r))[1]) for r in freed]
    runs += [
        Running(lambda i=i: (start.wait(), arrive(engine, study_id, f"N{i}"))[1]) for i in range(6)
    ]
    results = [r.outcome() for r in runs]
    assert results[:3] == [True, True, True]
    newcomers = [r for r in results[3:] if isinstance(r, Allocation)]
    assert len(newcomers) <= 3  # never more than the places freed
    while len(newcomers) < 3:  # those who came before a release find the places now
        got = arrive(engine, study_id, f"again{len(newcomers)}")
        assert isinstance(got, Allocation)
        newcomers.append(got)
    assert isinstance(arrive(engine, study_id, "late"), Refused)
    with session_scope(engine) as session:
        held = session.exec(
            select(Slot.session_ref, Assignment.status, Worker.platform_worker_id)
            .join(Assignment, col(Assignment.id) == col(Slot.assignment_id))
            .join(Worker, col(Worker.id) == col(Slot.worker_id))
            .where(Slot.state == SlotState.RESERVED)
        ).all()
        assert len(held) == 8 == len({ref for ref, _, _ in held})
        assert {status for _, status, _ in held} == {AssignmentStatus.ACCEPTED}
        assert not {ref for ref, _, _ in held} & set(freed)
        returned = session.exec(
            select(Assignment.platform_assignment_id).where(
                Assignment.status == AssignmentStatus.RETURNED
            )
        ).all()
        assert sorted(returned) == sorted(freed)


@pytest.mark.slow
def test_arrivals_blocks_pauses_and_screening_at_once_all_finish(link):
    """The locks are taken study's first, places' second, each before its transaction writes:
    on SQLite a writer never waits for a lock file whose holder waits to write."""
    engine, study_id = link
    start = threading.Barrier(5)

    def screening() -> int:
        start.wait()
        for turn in range(6):
            with session_scope(engine) as session:
                lock_study(session, study_id)
                record_event(
                    session, EventKind.SCREENING_DECISION, study_id=study_id, subject=f"S{turn}"
                )
        return 6

    def pausing() -> int:
        start.wait()
        moves = 0
        for _ in range(3):
            for move in (pause_study, resume_study):
                with session_scope(engine) as session:
                    running = launched_study(session, "small")
                    moves += move(session, provider_for(running), running, "a person")
        return moves

    def arriving(crowd: int) -> list[Allocation | Refused]:
        start.wait()
        return [arrive(engine, study_id, f"C{crowd}-{i}") for i in range(6)]

    def blocking() -> int:
        start.wait()
        return sum(block(engine, f"C0-{i}") for i in range(3))

    runs = [
        Running(screening),
        Running(pausing),
        Running(lambda: arriving(0)),
        Running(lambda: arriving(1)),
        Running(blocking),
    ]
    screened, moves, crowd0, crowd1, blocked = [r.outcome(timeout=120) for r in runs]
    assert (screened, moves, blocked) == (6, 6, 3)
    given = [a for a in crowd0 + crowd1 if isinstance(a, Allocation)]
    with session_scope(engine) as session:
        assert slot_counts(session, study_id)["reserved"] == len(given)
        refusals = [a.reason for a in crowd0 + crowd1 if isinstance(a, Refused)]
        assert set(refusals) <= {Refusal.PAUSED, Refusal.BLOCKED, Refusal.FULL}
