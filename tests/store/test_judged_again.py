"""A worker's judgment of an item they judged in another assignment of the study is stored as a
``repeat``: an adaptive study on MTurk composes HITs from the items still short, and a worker
may take a later one holding an item they judged. The second judgment is not independent of
the first, so content figures (raters per item, an adaptive item's values, alpha) leave it
out, and the intra-rater checks pair it with the first, as for an item shown twice in one
assignment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import col, select

from harness.characterize.instrument import instrument_from_study
from harness.platform.adaptive import study_values
from harness.screening.controls import calibration_failure
from harness.screening.stored import study_context
from harness.spec import load_spec
from harness.store import create_study, load_study, session_scope, study_judgments
from harness.store.hits import add_planned_hits
from harness.store.models import Judgment
from harness.store.submissions import Answer, NewSubmission, store_new_submissions
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

FIRST, LATER = [("a", 2.0), ("b", 5.0)], [("a", 9.0), ("c", 4.0)]
T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture(params=["one by one", "in one batch"])
def stored(request, engine, tmp_path):
    """W1 did a HIT of a and b, then a composed HIT of a and c; W2 only the composed one."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        first, later = add_planned_hits(session, study, [["a", "b"], ["a", "c"]], max_assignments=3)
        done = [
            NewSubmission(hit, f"A{n}", worker, _answers(shown), T0 + timedelta(minutes=n))
            for n, (hit, worker, shown) in enumerate(
                [(first, "W1", FIRST), (later, "W1", LATER), (later, "W2", LATER)]
            )
        ]
        if request.param == "in one batch":
            store_new_submissions(session, done)
        else:
            for submission in done:
                store_new_submissions(session, [submission])
        return study


def _answers(shown: list[tuple[str, float]]) -> list[Answer]:
    return [Answer(key, i, value) for i, (key, value) in enumerate(shown)]


def test_the_second_judgment_of_an_item_by_one_worker_is_stored_as_a_repeat(engine, stored):
    with session_scope(engine) as session:
        table = study_judgments(session, stored.id)
    roles = table.set_index(["assignment_id", "item_id"])["role"].to_dict()
    assert roles == {
        ("A0", "a"): "item",
        ("A0", "b"): "item",
        ("A1", "a"): "repeat",  # W1 judged a in A0
        ("A1", "c"): "item",
        ("A2", "a"): "item",  # W2's first
        ("A2", "c"): "item",
    }


def test_content_figures_and_adaptive_values_count_each_worker_once(engine, stored):
    with session_scope(engine) as session:
        found = load_study(session, stored)
        values = study_values(session, stored.id)
        judgments = session.exec(select(Judgment).order_by(col(Judgment.id))).all()
    instrument = instrument_from_study(found.study, found.instrument, found.judgments)
    assert instrument.judgments.groupby("item_id").size().to_dict() == {"a": 2, "b": 1, "c": 2}
    assert instrument.controls_left_out == 1
    first = instrument.judgments.set_index(["worker_id", "item_id"])["value"]
    assert first[("W1", "a")] == 2.0  # the first judgment counts
    assert values.groupby("item_id").size().to_dict() == {"a": 2, "b": 1, "c": 2}
    assert len(judgments) == 6  # nothing is dropped: the repeat is kept, as a repeat


def test_the_intra_rater_check_pairs_the_two_judgments(engine, stored):
    with session_scope(engine) as session:
        table = study_judgments(session, stored.id)
        context = study_context(session, stored)
    h10 = calibration_failure(table, context).set_index("worker_id")
    assert h10.loc["W1", "evidence"] == 1  # a: 2 then 9 on 0-10
    assert h10.loc["W2", "evidence"] == 0
