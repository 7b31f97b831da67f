"""Whose answers an assignment already has, as a task page asks on every load: the stored
assignment's worker, a quarantined submission's poster unless the platform refused it, or
nobody; another worker's quarantined answers are not the platform's word."""

from __future__ import annotations

import pytest

from harness.answer import Answer
from harness.platform.submissions.settling import settle
from harness.platform.verification import Verdict, Verification
from harness.store import session_scope
from harness.store.models import Hit, QuarantineState
from harness.store.quarantine import Owner, quarantine, submitted_by
from harness.store.received import accept
from harness.store.submissions import store_submission


@pytest.fixture
def store(one_hit):
    """An engine and a HIT of a minimal study (its first item's key)."""
    return one_hit.engine, one_hit.hit_id, one_hit.key


def test_nobody_has_answered_an_assignment_the_store_has_never_seen(store):
    engine, _, _ = store
    with session_scope(engine) as session:
        assert submitted_by(session, "A-new", "W1") is None


def test_an_accepted_assignment_without_answers_is_its_workers_to_answer(store):
    engine, hit_id, _ = store
    with session_scope(engine) as session:
        accept(session, session.get(Hit, hit_id), "A1", "W1")
    with session_scope(engine) as session:
        assert submitted_by(session, "A1", "W1") is None
        assert submitted_by(session, "A1", "W2") is Owner.OTHER


def test_stored_answers_belong_to_their_worker_and_to_nobody_else(store):
    engine, hit_id, key = store
    with session_scope(engine) as session:
        answers = [Answer(item_key=key, position=0, value=3.0)]
        store_submission(session, session.get(Hit, hit_id), "A1", "W1", answers)
    with session_scope(engine) as session:
        assert submitted_by(session, "A1", "W1") is Owner.SAME
        assert submitted_by(session, "A1", "W2") is Owner.OTHER


def test_quarantined_answers_count_for_their_poster_until_the_platform_refuses_them(store):
    engine, hit_id, _ = store
    with session_scope(engine) as session:
        hit = session.get(Hit, hit_id)
        kept_id, _ = quarantine(
            session,
            study_id=hit.study_id,
            hit_id=hit_id,
            assignment_id="A1",
            worker_id="W1",
            fields=[("x", "1")],
            reason="not submitted yet",
        )
    with session_scope(engine) as session:
        assert submitted_by(session, "A1", "W1") is Owner.SAME
        assert submitted_by(session, "A1", "W2") is None  # not the platform's word
        refused = Verification(Verdict.REFUSED, "another worker's")
        settled = settle(session, [(kept_id, refused, session.get(Hit, hit_id))])
        assert settled[kept_id].state is QuarantineState.REFUSED
    with session_scope(engine) as session:
        assert submitted_by(session, "A1", "W1") is Owner.OTHER
