"""Keeping a submission apart as the task server does on every post (`quarantine`): once per
worker and assignment, the first answers kept, one event."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.store import session_scope
from harness.store.events import EventKind
from harness.store.models import Event, QuarantinedSubmission, QuarantineState
from harness.store.quarantine import quarantine


@pytest.fixture
def store(one_hit):
    """An engine and the study and HIT ids of a minimal study."""
    return one_hit.engine, one_hit.study_id, one_hit.hit_id


def _post(engine, study_id, hit_id, fields, worker="W1"):
    with session_scope(engine) as session:
        return quarantine(
            session,
            study_id=study_id,
            hit_id=hit_id,
            assignment_id="A1",
            worker_id=worker,
            fields=fields,
            reason="not submitted yet",
        )


def test_a_repeated_post_keeps_the_first_answers_and_logs_one_event(store):
    engine, study_id, hit_id = store
    first, created = _post(engine, study_id, hit_id, [("value-0", "3")])
    again, created_again = _post(engine, study_id, hit_id, [("value-0", "9")])
    assert (created, created_again) == (True, False)
    assert again == first
    with session_scope(engine) as session:
        row = session.get(QuarantinedSubmission, first)
        assert row.fields == [["value-0", "3"]]
        assert row.state is QuarantineState.PENDING
        events = session.exec(
            select(Event).where(Event.kind == EventKind.ASSIGNMENT_QUARANTINED)
        ).all()
        assert [(e.subject, e.payload["worker"]) for e in events] == [("A1", "W1")]


def test_another_workers_post_for_the_same_assignment_is_kept_apart(store):
    engine, study_id, hit_id = store
    mine, _ = _post(engine, study_id, hit_id, [("value-0", "3")])
    theirs, created = _post(engine, study_id, hit_id, [("value-0", "5")], worker="W2")
    assert created and theirs != mine
