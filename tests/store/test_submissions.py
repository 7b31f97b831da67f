"""Submissions are stored whole and once: a repeat writes nothing, a stranger is refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import func, select

from harness.errors import StoreError
from harness.spec import load_spec
from harness.store import create_study, session_scope, study_judgments
from harness.store.hits import add_planned_hits, study_hit
from harness.store.models import AssignmentStatus, Judgment
from harness.store.submissions import Answer, store_submission
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

T0 = minutes_ago()


@pytest.fixture
def loaded(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    return load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))


def _answers(keys):
    return [
        Answer(
            k,
            i,
            float(i + 3),
            shown_at=T0 + timedelta(seconds=10 * i),
            answered_at=T0 + timedelta(seconds=10 * i + 4),
        )
        for i, k in enumerate(keys)
    ]


def test_a_submission_becomes_judgments_with_positions_and_timings(engine, loaded):
    keys = loaded.items["item_id"].tolist()[:2]
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [keys], max_assignments=3)
        stored = store_submission(session, hit, "A1", "W1", _answers(keys))
        assert stored.created
        assert stored.assignment.status == AssignmentStatus.SUBMITTED
    with session_scope(engine) as session:
        table = study_judgments(session, study.id)
    assert table["item_id"].tolist() == keys
    assert table["position"].tolist() == [0, 1]
    assert table["seconds"].tolist() == [4.0, 4.0]
    assert table["worker_id"].unique().tolist() == ["W1"]


def test_a_second_submission_of_the_same_assignment_writes_nothing(engine, loaded):
    keys = loaded.items["item_id"].tolist()[:2]
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [keys], max_assignments=3)
        store_submission(session, hit, "A1", "W1", _answers(keys))
    with session_scope(engine) as session:
        hit = study_hit(session, study.id, 0)
        again = store_submission(session, hit, "A1", "W1", _answers(keys[::-1]))
        assert not again.created
    with session_scope(engine) as session:
        assert session.exec(select(func.count()).select_from(Judgment)).one() == 2


def test_another_worker_cannot_submit_an_assignment(engine, loaded):
    keys = loaded.items["item_id"].tolist()[:2]
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [keys], max_assignments=3)
        store_submission(session, hit, "A1", "W1", _answers(keys))
    with pytest.raises(StoreError, match="another worker"), session_scope(engine) as session:
        store_submission(session, study_hit(session, study.id, 0), "A1", "W2", _answers(keys))


def test_an_unknown_item_writes_nothing_at_all(engine, loaded):
    keys = loaded.items["item_id"].tolist()[:2]
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        add_planned_hits(session, study, [keys], max_assignments=3)
    with pytest.raises(StoreError, match="nope"), session_scope(engine) as session:
        hit = study_hit(session, study.id, 0)
        store_submission(session, hit, "A1", "W1", _answers([keys[0], "nope"]))
    with session_scope(engine) as session:
        assert session.exec(select(func.count()).select_from(Judgment)).one() == 0


def test_planning_hits_twice_keeps_one_row_per_index_and_refuses_a_changed_plan(engine, loaded):
    keys = loaded.items["item_id"].tolist()
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        first = add_planned_hits(session, study, [keys[:2], keys[2:4]], max_assignments=3)
        second = add_planned_hits(session, study, [keys[:2], keys[2:4]], max_assignments=3)
        assert [h.id for h in first] == [h.id for h in second]
        with pytest.raises(ValueError, match="plan changed"):
            add_planned_hits(session, study, [keys[1:3]], max_assignments=3)


def test_page_signals_are_stored_with_their_judgments_and_exported(engine, loaded):
    from harness.page_signals import InputKind, PageSignals

    keys = loaded.items["item_id"].tolist()[:2]
    answers = _answers(keys)
    signals = PageSignals(3.5, 2.0, 1, 3, 1, InputKind.KEYBOARD, True)
    answers[0] = Answer(**{**vars(answers[0]), "signals": signals})
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [keys], max_assignments=3)
        store_submission(session, hit, "A1", "W1", answers)
    with session_scope(engine) as session:
        table = study_judgments(session, study.id)
    first, second = table.iloc[0], table.iloc[1]
    assert (first["visible_seconds"], first["hidden_seconds"]) == (3.5, 2.0)
    assert (first["hides"], first["blurs"], first["pastes"]) == (1, 3, 1)
    assert first["input_kind"] == "keyboard" and bool(first["answered_hidden"])
    assert second[["hides", "answered_hidden", "input_kind"]].isna().all()  # none sent
