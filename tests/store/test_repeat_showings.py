"""A repeated item's second showing is stored as a ``repeat``: content figures (alpha, raters
per item, judgments per item) leave it out, and the intra-rater checks still pair it with the
first showing. A store written before (both showings ``item``) reads the same."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from sqlmodel import select

from harness.characterize.instrument import instrument_from_csv, instrument_from_study
from harness.judgments import write_judgments
from harness.screening.controls import calibration_failure, control_checks
from harness.screening.stored import study_context
from harness.spec import load_spec
from harness.store import create_study, load_study, session_scope, study_judgments
from harness.store.hits import add_planned_hits
from harness.store.judgment_table import screening_rows
from harness.store.models import Judgment
from harness.store.submissions import Answer, store_submission
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

# w1 and w2 each see a, b and a again (their own order); a is shown twice to each.
SHOWINGS = {"W1": [("a", 2.0), ("b", 5.0), ("a", 3.0)], "W2": [("b", 6.0), ("a", 1.0), ("a", 9.0)]}


@pytest.fixture
def stored(engine, tmp_path):
    """A study whose two workers each answered item a twice in their one assignment."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        (hit,) = add_planned_hits(session, study, [["a", "b"]], max_assignments=3)
        for n, (worker, shown) in enumerate(SHOWINGS.items()):
            answers = [Answer(k, i, v) for i, (k, v) in enumerate(shown)]
            store_submission(session, hit, f"A{n}", worker, answers)
        return study


def _written_before(engine) -> None:
    """What a store written before this change holds: every showing with the item's role."""
    with session_scope(engine) as session:
        session.execute(sa.update(Judgment).values(role="item"))


def test_the_store_writes_the_second_showing_as_a_repeat(engine, stored):
    with session_scope(engine) as session:
        rows = session.exec(select(Judgment).order_by(Judgment.id)).all()  # type: ignore[arg-type]
        roles = [r.role for r in rows]
    assert roles == ["item", "item", "repeat", "item", "item", "repeat"]


@pytest.mark.parametrize("before", [False, True], ids=["written-now", "written-before"])
def test_the_judgment_tables_read_the_second_showing_as_a_repeat(engine, stored, before):
    if before:
        _written_before(engine)
    with session_scope(engine) as session:
        long = study_judgments(session, stored.id)
        lean = screening_rows(session, stored.id)
    for table in (long, lean):
        repeats = table[table["role"] == "repeat"]
        assert sorted(zip(repeats["worker_id"], repeats["position"], strict=True)) == [
            ("W1", 2),
            ("W2", 2),
        ]


@pytest.mark.parametrize("before", [False, True], ids=["written-now", "written-before"])
def test_content_figures_count_one_judgment_per_rater_and_item(engine, stored, before):
    if before:
        _written_before(engine)
    with session_scope(engine) as session:
        found = load_study(session, stored)
    instrument = instrument_from_study(found.study, found.instrument, found.judgments)
    per_item = instrument.judgments.groupby("item_id").size().to_dict()
    assert per_item == {"a": 2, "b": 2}  # one per rater: the second showings are controls
    assert instrument.controls_left_out == 2
    first = instrument.judgments.set_index(["worker_id", "item_id"])["value"]
    assert first[("W1", "a")] == 2.0 and first[("W2", "a")] == 1.0  # the first showing's


@pytest.mark.parametrize("before", [False, True], ids=["written-now", "written-before"])
def test_the_intra_rater_checks_still_pair_the_two_showings(engine, stored, before):
    if before:
        _written_before(engine)
    with session_scope(engine) as session:
        table = study_judgments(session, stored.id)
        context = study_context(session, stored)
    checks = control_checks(table, context)
    repeat = checks[checks["control"] == "repeat"].set_index("worker_id")["passed"]
    assert repeat.to_dict() == {"W1": True, "W2": False}  # 1 apart; 8 apart on 0-10
    h10 = calibration_failure(table, context).set_index("worker_id")
    assert h10.loc["W1", "evidence"] == 1 and h10.loc["W2", "evidence"] == 1


def test_a_judgments_csv_exported_before_reads_with_the_repeat_left_out(engine, stored, tmp_path):
    _written_before(engine)
    with session_scope(engine) as session:
        table = study_judgments(session, stored.id)
    old = table.assign(role="item")  # as an export made before this change holds it
    path = tmp_path / "old.csv"
    write_judgments(old, path)
    instrument = instrument_from_csv(path)
    assert len(instrument.judgments) == 4 and instrument.controls_left_out == 2
    given = instrument.given
    assert given is not None
    assert (given["role"] == "repeat").sum() == 2


def test_an_export_keeps_the_repeat_role_and_reads_back_the_same(engine, stored, tmp_path):
    with session_scope(engine) as session:
        table = study_judgments(session, stored.id)
    path = tmp_path / "now.csv"
    write_judgments(table, path)
    back = instrument_from_csv(path).given
    assert back is not None
    pd.testing.assert_series_equal(back["role"], table["role"], check_names=False)
