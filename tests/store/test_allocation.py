"""The allocator: each arriving participant gets the next slot that needs a rater, never an
item twice, never after a block; reservations expire; exactly the raters per item, also with
several processes allocating at once."""

from __future__ import annotations

import multiprocessing
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import select

from harness.spec import load_spec
from harness.store import create_study, session_scope
from harness.store.allocation import (
    Allocation,
    Refusal,
    Refused,
    allocate,
    ensure_slots,
    release,
    settle,
)
from harness.store.arm_assignment import allocate_in_arm
from harness.store.events import EventKind, record_event
from harness.store.hits import add_planned_hits
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Hit,
    Slot,
    SlotState,
    Study,
    StudyStatus,
)
from harness.store.slot_choice import Candidate, preference
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec
from tests.processes import forked

T0 = minutes_ago()
HOLD = timedelta(minutes=30)


def _candidate(slot, hit, items, taken, position=0):
    return Candidate(slot, hit, hit, position, frozenset(items), taken)


def test_the_choice_prefers_the_hit_furthest_from_its_raters_then_the_lowest_index():
    cands = [_candidate(1, 0, "ab", 2), _candidate(2, 1, "cd", 1), _candidate(3, 2, "ef", 1)]
    assert [c.slot_id for c in preference(cands, [])] == [2, 3, 1]


def test_the_choice_never_gives_a_hit_sharing_an_item_with_earlier_work():
    cands = [_candidate(1, 0, "ab", 0), _candidate(2, 1, "bc", 0), _candidate(3, 2, "de", 5)]
    assert [c.slot_id for c in preference(cands, ["b"])] == [3]
    assert preference(cands, ["b", "d"]) == []


def test_the_choice_honours_a_callers_rule_such_as_an_arm():
    cands = [_candidate(1, 0, "ab", 0), _candidate(2, 1, "cd", 3)]
    assert [c.slot_id for c in preference(cands, [], allowed=lambda c: c.hit_index == 1)] == [2]


@pytest.fixture
def study_id(engine, tmp_path):
    """A study of 2 HITs (items a, b | c, d) wanting 3 raters each: 6 slots."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        add_planned_hits(session, study, [["a", "b"], ["c", "d"]], max_assignments=3)
        assert ensure_slots(session, study.id) == 6
        assert ensure_slots(session, study.id) == 0
        return study.id


def _allocate(engine, study_id, worker, ref=None, now=T0, hold=HOLD):
    with session_scope(engine) as session:
        return allocate(session, study_id, worker, ref, hold=hold, now=now)


def test_participants_fill_the_hits_evenly_and_a_full_study_refuses(engine, study_id):
    got = [_allocate(engine, study_id, f"W{i}", f"S{i}") for i in range(6)]
    assert all(isinstance(a, Allocation) for a in got)
    assert [a.hit_index for a in got] == [0, 1, 0, 1, 0, 1]
    full = _allocate(engine, study_id, "W9", "S9")
    assert full == Refused(Refusal.FULL, full.message)
    assert full.message.startswith("There is no work left in this study for you right now")
    with session_scope(engine) as session:
        assert slot_counts(session, study_id) == {"open": 0, "reserved": 6, "submitted": 0}
        accepted = session.exec(select(Assignment)).all()
        assert sorted(a.platform_assignment_id for a in accepted) == [f"S{i}" for i in range(6)]


def test_an_arrival_loads_no_slot_as_an_object_and_takes_its_place_in_12_statements(
    engine, study_id
):
    """Arrivals take turns under the places lock: reading each of the study's thousands of
    slots as an object there made the lock the bottleneck of a study link (load test, 200
    participants: 13.7 of 16 server threads waiting on it), and so does each round trip to
    the database while the lock is held (the load test after the lock was split: 13 of 16
    threads waiting for the places lock; 22 statements under it then). A new participant:
    the lock (PostgreSQL), the study's status, the worker (read, made), their slot, their
    block, slots missing, their items, the free slots, the take, the assignment, the slot's
    assignment, the event."""
    _allocate(engine, study_id, "W0", "S0")
    loaded, statements = [], []

    def count(target, context):
        loaded.append(target.id)

    def executed(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    sa.event.listen(Slot, "load", count)
    sa.event.listen(engine, "before_cursor_execute", executed)
    try:
        with session_scope(engine) as session:
            got = allocate_in_arm(
                session, study_id, "W1", "S1", hold=HOLD, now=T0, paused_stops_new=True
            )
    finally:
        sa.event.remove(Slot, "load", count)
        sa.event.remove(engine, "before_cursor_execute", executed)
    assert isinstance(got, Allocation)
    assert loaded == []
    arms, lock = 1, 1 if engine.dialect.name == "postgresql" else 0
    assert len(statements) <= arms + lock + 16, "\n".join(statements)  # 12 now; 22 was slow


def test_a_participant_gets_their_slot_back_on_a_second_visit(engine, study_id):
    first = _allocate(engine, study_id, "W1", "S1")
    again = _allocate(engine, study_id, "W1", "S1", now=T0 + timedelta(minutes=5))
    assert again.slot_id == first.slot_id and again.resumed and not first.resumed
    link = _allocate(engine, study_id, "W2")  # a study link: no session of the platform's
    assert link.session_ref.startswith("L")
    assert _allocate(engine, study_id, "W2").slot_id == link.slot_id


def test_a_participant_takes_a_second_hit_but_never_one_they_did(engine, study_id):
    first = _allocate(engine, study_id, "W1", "S1")
    with session_scope(engine) as session:
        assert settle(session, "S1")
    second = _allocate(engine, study_id, "W1", "S2")
    assert {first.hit_index, second.hit_index} == {0, 1}
    with session_scope(engine) as session:
        assert settle(session, "S2")
    third = _allocate(engine, study_id, "W1", "S3")
    assert isinstance(third, Refused) and third.reason is Refusal.FULL
    done = _allocate(engine, study_id, "W1", "S1")
    assert done == Refused(
        Refusal.DONE, "Your answers for this session are recorded already. Thank you!"
    )


def test_a_blocked_participant_is_refused(engine, study_id):
    with session_scope(engine) as session:
        record_event(session, EventKind.BLOCKED, study_id=study_id, subject="W1")
    refused = _allocate(engine, study_id, "W1", "S1")
    assert refused.reason is Refusal.BLOCKED
    assert refused.message == (
        "You cannot take part in this study any more. Thank you for your time."
    )


def test_an_expired_reservation_goes_to_the_next_participant_and_the_late_one_is_refused(
    engine, study_id
):
    taken = [_allocate(engine, study_id, f"W{i}", f"S{i}") for i in range(6)]
    later = T0 + HOLD + timedelta(seconds=1)
    newcomer = _allocate(engine, study_id, "W7", "S7", now=later)
    assert isinstance(newcomer, Allocation)
    assert newcomer.slot_id == taken[0].slot_id
    with session_scope(engine) as session:
        assert not settle(session, "S0")  # the late participant's answers are not taken
        gone = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == "S0")
        ).one()
        assert gone.status is AssignmentStatus.ABANDONED
        assert settle(session, "S7")


def test_a_returned_session_frees_its_slot(engine, study_id):
    first = _allocate(engine, study_id, "W1", "S1")
    with session_scope(engine) as session:
        assert release(session, "S1", AssignmentStatus.RETURNED, "returned on Prolific")
        assert not release(session, "S1", AssignmentStatus.RETURNED, "again")
        assert session.get(Slot, first.slot_id).state is SlotState.OPEN
    assert _allocate(engine, study_id, "W2", "S2").slot_id == first.slot_id


def test_a_replacement_adds_a_slot_to_its_hit(engine, study_id):
    for i in range(6):
        _allocate(engine, study_id, f"W{i}", f"S{i}")
    with session_scope(engine) as session:
        hit = session.exec(select(Hit).where(Hit.index == 1)).one()
        hit.max_assignments = 4
        session.add(hit)
    extra = _allocate(engine, study_id, "W9", "S9")
    assert isinstance(extra, Allocation) and extra.hit_index == 1


PROCESSES = forked(__name__)


def _worker(url: str, study_id: int, names: list[str], out: multiprocessing.Queue) -> None:
    from harness.store import make_engine

    engine = make_engine(url)
    got = []
    for name in names:
        with session_scope(engine) as session:
            result = allocate(session, study_id, name, f"S-{name}", hold=HOLD)
            if isinstance(result, Allocation):
                settle(session, result.session_ref)
                got.append((name, result.hit_index))
    engine.dispose()
    out.put(got)


@pytest.mark.slow
def test_several_processes_allocating_at_once_fill_every_slot_exactly_once(
    engine, database_url, study_id
):
    out: multiprocessing.Queue = PROCESSES.Queue()
    names = [[f"P{p}W{i}" for i in range(4)] for p in range(4)]  # 16 people, 6 places
    procs = [
        PROCESSES.Process(target=_worker, args=(database_url, study_id, n, out)) for n in names
    ]
    for proc in procs:
        proc.start()
    got = [pair for _ in procs for pair in out.get(timeout=60)]
    for proc in procs:
        proc.join(timeout=60)
    assert len(got) == 6
    assert sorted(hit for _, hit in got) == [0, 0, 0, 1, 1, 1]
    with session_scope(engine) as session:
        assert slot_counts(session, study_id) == {"open": 0, "reserved": 0, "submitted": 6}


def _pause(engine, study_id):
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        study.status = StudyStatus.PAUSED
        session.add(study)


def test_a_pause_committed_while_an_arrival_waited_stops_the_newcomer_not_work_under_way(
    engine, study_id
):
    held = _allocate(engine, study_id, "W1", "S1")
    assert isinstance(held, Allocation)
    with session_scope(engine) as session:
        seen = session.get(Study, study_id)  # the arrival read the study: not paused
        assert seen.status is not StudyStatus.PAUSED
        _pause(engine, study_id)  # meanwhile, pausing takes the study's lock and commits
        got = allocate_in_arm(
            session, study_id, "W2", "S2", hold=HOLD, now=T0, paused_stops_new=True
        )
        assert got == Refused(Refusal.PAUSED, got.message)
        assert "paused" in got.message
        again = allocate_in_arm(
            session, study_id, "W1", "S1", hold=HOLD, now=T0, paused_stops_new=True
        )
        assert isinstance(again, Allocation) and again.resumed
    with session_scope(engine) as session:  # no new place was taken
        assert slot_counts(session, study_id).get("reserved") == 1


def test_a_platform_that_pauses_itself_is_not_refused_at_entry(engine, study_id):
    _pause(engine, study_id)  # Prolific stops sending people; harness does not turn them away
    with session_scope(engine) as session:
        got = allocate_in_arm(session, study_id, "W2", "S2", hold=HOLD, now=T0)
    assert isinstance(got, Allocation)


def slot_counts(session, study_id):
    """How many of the study's slots are open, reserved and submitted."""
    counts = {s.value: 0 for s in SlotState}
    for state in session.exec(select(Slot.state).where(Slot.study_id == study_id)):
        counts[SlotState(state).value] += 1
    return counts
