"""The store's schedule of rechecks of quarantined submissions: due when their time comes,
each taken by exactly one process (a conditional update decides), the next scheduled by the
same update, none after the last; a quarantined submission is settled once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from harness.platform.submissions.settling import Settled, settle
from harness.platform.verification import Verdict, Verification
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.models import (
    Event,
    EventKind,
    Hit,
    QuarantinedSubmission,
    QuarantineState,
    utcnow,
)
from harness.store.quarantine import quarantine
from harness.store.rechecks import (
    RECHECK_DELAYS,
    Taken,
    due_rechecks,
    first_recheck,
    stop_rechecks,
    take_rechecks,
)
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec


def take_recheck(session, row_id, done, now):
    """`take_rechecks` of one row: its recheck taken, or None."""
    return take_rechecks(session, [(row_id, done)], now).get(row_id)


@pytest.fixture
def row(database_url, tmp_path):
    """An engine, a submission quarantined with its first recheck scheduled, and the time
    it was quarantined."""
    engine = make_engine(database_url)
    quarantined = utcnow()
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        hit = Hit(study_id=study.id, index=0, max_assignments=1, items=[])
        session.add(hit)
        session.flush()
        row_id, created = quarantine(
            session,
            study_id=study.id,
            hit_id=hit.id,
            assignment_id="A1",
            worker_id="W1",
            fields=[("x", "1")],
            reason="not submitted yet",
            recheck_at=first_recheck(quarantined),
        )
        assert created
    yield engine, row_id, quarantined
    engine.dispose()


def test_a_recheck_is_due_when_its_time_comes(row):
    engine, row_id, quarantined = row
    just_before = quarantined + timedelta(seconds=RECHECK_DELAYS[0] - 0.1)
    just_after = quarantined + timedelta(seconds=RECHECK_DELAYS[0] + 0.1)
    with session_scope(engine) as session:
        assert due_rechecks(session, just_before) == []
        assert due_rechecks(session, just_after) == [(row_id, 0)]


def test_each_recheck_is_taken_by_exactly_one_process_and_schedules_the_next(row):
    engine, row_id, _ = row
    now = utcnow() + timedelta(seconds=1)
    with session_scope(engine) as first, session_scope(engine) as second:
        taken = take_recheck(first, row_id, 0, now)
        assert taken is not None
        assert taken.next_at == now + timedelta(seconds=RECHECK_DELAYS[1])
        assert take_recheck(second, row_id, 0, now) is None  # the same recheck: taken
        assert take_recheck(second, row_id, 1, now) is None  # the next: not due yet
    done = 1
    at = now
    while True:  # the rest of the schedule, each when due
        at += timedelta(seconds=RECHECK_DELAYS[done])
        with session_scope(engine) as session:
            taken = take_recheck(session, row_id, done, at)
        assert taken is not None
        done += 1
        if taken.next_at is None:
            break
    assert done == len(RECHECK_DELAYS)
    with session_scope(engine) as session:
        assert due_rechecks(session, at + timedelta(days=1)) == []  # left to sync
        stored = session.get(QuarantinedSubmission, row_id)
        assert stored.rechecks == len(RECHECK_DELAYS) and stored.recheck_at is None


def test_a_settled_or_stopped_submission_is_not_rechecked(row):
    engine, row_id, _ = row
    later = utcnow() + timedelta(seconds=5)
    with session_scope(engine) as session:
        stop_rechecks(session, row_id)
    with session_scope(engine) as session:
        assert due_rechecks(session, later) == []
        assert take_recheck(session, row_id, 0, later) is None


def test_a_quarantined_submission_is_settled_once(row):
    engine, row_id, _ = row
    with session_scope(engine) as first, session_scope(engine) as second:
        hit = first.get(Hit, first.get(QuarantinedSubmission, row_id).hit_id)
        mine = Verification(Verdict.REFUSED, "MTurk names another worker")
        theirs = Verification(Verdict.REFUSED, "someone else's")
        assert settle(first, [(row_id, mine, hit)]) == {row_id: Settled(QuarantineState.REFUSED)}
        first.commit()
        assert settle(second, [(row_id, theirs, hit)]) == {row_id: None}  # as the first left it
    with session_scope(engine) as session:
        stored = session.get(QuarantinedSubmission, row_id)
        assert stored.state is QuarantineState.REFUSED and stored.recheck_at is None
        assert stored.reason == "MTurk names another worker"
        resolved = session.exec(
            select(Event).where(Event.kind == EventKind.QUARANTINE_RESOLVED)
        ).all()
        assert [e.payload["state"] for e in resolved] == ["refused"]
        assert due_rechecks(session, utcnow() + timedelta(days=1)) == []


def test_due_rechecks_are_taken_together_each_once_with_its_own_next_delay(row):
    engine, first_id, _ = row
    with session_scope(engine) as session:
        study_id, hit_id = session.exec(
            select(QuarantinedSubmission.study_id, QuarantinedSubmission.hit_id)
        ).one()
        ids = [first_id]
        for n in (2, 3):
            kept_id, _ = quarantine(
                session,
                study_id=study_id,
                hit_id=hit_id,
                assignment_id=f"A{n}",
                worker_id=f"W{n}",
                fields=[("x", "1")],
                reason="not yet",
                recheck_at=first_recheck(),
            )
            ids.append(kept_id)
    now = utcnow() + timedelta(seconds=1)
    with session_scope(engine) as other:  # another process takes the second one first
        assert take_recheck(other, ids[1], 0, now) is not None
    later = now + timedelta(seconds=RECHECK_DELAYS[1] + 0.1)
    with session_scope(engine) as session:
        due = due_rechecks(session, later)
        assert sorted(due) == [(ids[0], 0), (ids[1], 1), (ids[2], 0)]
        stale = [(ids[0], 0), (ids[1], 0), (ids[2], 0)]  # as read before the other took it
        taken = take_rechecks(session, stale, later)
    assert taken == {
        ids[0]: Taken(later + timedelta(seconds=RECHECK_DELAYS[1])),
        ids[2]: Taken(later + timedelta(seconds=RECHECK_DELAYS[1])),
    }
    with session_scope(engine) as session:
        assert take_rechecks(session, due, later) == {  # only the one not taken yet
            ids[1]: Taken(later + timedelta(seconds=RECHECK_DELAYS[2]))
        }
        assert take_rechecks(session, due, later) == {}
