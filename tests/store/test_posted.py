"""What never changes about a posted HIT (its arm, instrument and items) is read from the store
once per process; a HIT not posted yet is read every time, and the cache of one database is
never used for another. Judgments go in as one insert and stay exactly once per assignment."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import func, select

from harness.spec.arms import load_arms
from harness.store import create_study, make_engine, session_scope
from harness.store.arm_assignment import assign_hits, record_arms
from harness.store.hits import add_planned_hits, study_hit
from harness.store.instruments import freeze_instrument
from harness.store.models import Assignment, AssignmentStatus, Event, Judgment
from harness.store.posted import hit_facts, hit_items
from harness.store.submissions import Answer, store_submission
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

T0 = minutes_ago()
ARMS = "arms:\n  plain: {}\n  anchored:\n    scale: {labels: {0: unrelated, 10: identical}}\n"


@pytest.fixture
def armed_study(engine, tmp_path):
    """A study of two arms with one HIT each (items a, b), not posted yet: (study id, arms'
    instrument ids)."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    armed = load_arms(write_spec(tmp_path, MINIMAL_RATING_SPEC + ARMS))
    with session_scope(engine) as session:
        study = create_study(session, armed.arms[0].loaded)
        hits = add_planned_hits(session, study, [["a", "b"], ["a", "b"]], max_assignments=3)
        versions = [freeze_instrument(session, a.loaded).id for a in armed.arms]
        names = [a.name for a in armed.arms]
        refs = record_arms(session, study.id, list(zip(names, versions, strict=True)))
        for ref, hit in zip(refs, hits, strict=True):
            assign_hits(session, ref.id, [hit.id])
        return study.id, versions


def _post(engine, study_id, index, platform_id):
    with session_scope(engine) as session:
        hit = study_hit(session, study_id, index)
        hit.platform_hit_id = platform_id
        session.add(hit)


class Statements:
    """The statements an engine sends while counting."""

    def __init__(self, engine):
        self.sent = []
        sa.event.listen(engine, "before_cursor_execute", self._sent)

    def _sent(self, _conn, _cursor, statement, *_args):
        self.sent.append(statement)


def _facts(engine, study_id, index):
    with session_scope(engine) as session:
        return hit_facts(session, study_hit(session, study_id, index))


def _items(engine, study_id, index, keys=("a",)):
    with session_scope(engine) as session:
        hit = study_hit(session, study_id, index)
        return hit_items(session, hit, hit_facts(session, hit).instrument_id, keys)


def test_a_posted_hits_arm_instrument_and_items_are_read_once(engine, armed_study):
    study_id, versions = armed_study
    _post(engine, study_id, 1, "PH1")
    seen = Statements(engine)
    first = _facts(engine, study_id, 1)
    reads = len(seen.sent)
    again = _facts(engine, study_id, 1)
    assert first.instrument_id == again.instrument_id == versions[1]  # the arm's, not the study's
    assert len(seen.sent) - reads < reads  # fewer than the first time: the arm was kept
    reads = len(seen.sent)
    assert sorted(_items(engine, study_id, 1)) == ["a", "b", "c", "d"]  # all of them, kept
    first, reads = len(seen.sent) - reads, len(seen.sent)
    assert sorted(_items(engine, study_id, 1)) == ["a", "b", "c", "d"]
    assert len(seen.sent) - reads < first


def test_a_hit_not_posted_yet_is_read_again_every_time(engine, armed_study):
    study_id, versions = armed_study
    seen = Statements(engine)
    _facts(engine, study_id, 0)
    reads = len(seen.sent)
    assert _facts(engine, study_id, 0).instrument_id == versions[0]
    assert len(seen.sent) - reads == reads  # the same reads again: nothing was kept
    reads = len(seen.sent)
    assert sorted(_items(engine, study_id, 0, {"b", "nope"})) == ["b"]  # only those asked for
    first, reads = len(seen.sent) - reads, len(seen.sent)
    assert sorted(_items(engine, study_id, 0, {"c"})) == ["c"]
    assert len(seen.sent) - reads == first  # the HIT, its arm and the items again


def test_the_cache_of_one_database_is_not_used_for_another(engine, armed_study, database_url):
    study_id, versions = armed_study
    _post(engine, study_id, 1, "PH1")
    _facts(engine, study_id, 1)
    other = make_engine(database_url)  # another engine: it reads for itself
    try:
        seen = Statements(other)
        assert _facts(other, study_id, 1).instrument_id == versions[1]
        assert any("arm_hit" in s for s in seen.sent)
    finally:
        other.dispose()


def _answers(keys):
    return [
        Answer(
            k, i, 5.0, shown_at=T0 + timedelta(seconds=i), answered_at=T0 + timedelta(seconds=i + 2)
        )
        for i, k in enumerate(keys)
    ]


def test_a_posted_arms_hit_stores_judgments_under_its_arms_instrument_in_one_insert(
    engine, armed_study
):
    study_id, versions = armed_study
    _post(engine, study_id, 1, "PH1")
    seen = Statements(engine)
    with session_scope(engine) as session:
        stored = store_submission(
            session, study_hit(session, study_id, 1), "A1", "W1", _answers(["a", "b"])
        )
    assert stored.created and stored.assignment.status is AssignmentStatus.SUBMITTED
    assert sum(s.lstrip().upper().startswith("INSERT INTO JUDGMENT") for s in seen.sent) == 1
    with session_scope(engine) as session:
        rows = session.exec(select(Judgment.instrument_id, Judgment.position, Judgment.role)).all()
        assignment = session.exec(select(Assignment)).one()
        logged = session.exec(select(Event).where(Event.subject == "A1")).one()
    assert sorted(rows) == [(versions[1], 0, "item"), (versions[1], 1, "item")]
    assert assignment.status is AssignmentStatus.SUBMITTED and assignment.submitted_at is not None
    assert logged.payload == {"worker": "W1", "hit": 1, "judgments": 2}


def test_a_submission_of_an_accepted_assignment_marks_it_submitted_once(engine, armed_study):
    from harness.store.submissions import accept

    study_id, _ = armed_study
    _post(engine, study_id, 0, "PH0")
    with session_scope(engine) as session:
        accept(session, study_hit(session, study_id, 0), "A1", "W1")
    for _ in range(2):
        with session_scope(engine) as session:
            store_submission(
                session, study_hit(session, study_id, 0), "A1", "W1", _answers(["a", "b"])
            )
    with session_scope(engine) as session:
        assignment = session.exec(select(Assignment)).one()
        assert session.exec(select(func.count()).select_from(Judgment)).one() == 2
        events = session.exec(select(func.count()).select_from(Event).where(Event.subject == "A1"))
        assert events.one() == 1
    assert assignment.status is AssignmentStatus.SUBMITTED and assignment.submitted_at is not None
