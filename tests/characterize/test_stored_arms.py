"""A stored study with arms as the comparison reads it (both stores): every arm's control
checks, counted against what the participants posted through the pages, its money per
judgment with the platform's fees, and `harness compare-arms` printing controls passed."""

from __future__ import annotations

import json
from decimal import Decimal

import pandas as pd
import pytest

from harness.characterize.arm_inputs import compare_stored, read_arms, with_fees
from harness.platform.registry import platform_named
from harness.store import find_study, make_engine, session_scope
from tests.platform.factories import harness_cli
from tests.providers.link.arm_study import work_arms_study


@pytest.fixture
def worked(store_copy):
    """The worked study (done once per backend; each test reads its own copy) and what the
    participants posted."""
    return store_copy("worked-arms", work_arms_study)


def test_every_arms_control_checks_are_read_with_their_arm(worked):
    db, posted = worked
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            stored = read_arms(session, find_study(session, "small"))
    finally:
        engine.dispose()
    checks = stored.checks
    counted = checks.groupby(["arm", "control"]).size().to_dict()
    assert counted == {
        (arm, control): n for arm, per in posted.checks.items() for control, n in per.items()
    }
    assert set(posted.checks["long"]) == {"identical", "repeat", "gold"}
    assert checks.loc[checks["arm"] == "long", "passed"].all()
    assert not checks.loc[checks["arm"] == "short", "passed"].any()
    arms = {w: a for w, a in posted.arms.items()}
    assert dict(zip(checks["worker_id"], checks["arm"], strict=True)) == arms
    # a link pays no fees: the money per judgment is the reward's: $0.10 per HIT of 4 items,
    # one identical pair and one repeat, 6 judgments of which the 4 items' first showings
    # are content (the repeat's second showing is a control)
    assert stored.cost_per_judgment == pytest.approx({"long": 0.025, "short": 0.025})
    result = compare_stored(stored, resamples=50)
    long, short = result.controls
    assert (long.share, short.share) == (1.0, 0.0)
    assert short.difference == -1.0 and short.diff_high is not None and short.diff_high < 0


def test_compare_arms_prints_and_writes_controls_passed(worked):
    db, posted = worked
    result = harness_cli("compare-arms", "small", "--db", db, "--bootstrap", "50")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    n_long = sum(posted.checks["long"].values())
    n_short = sum(posted.checks["short"].values())
    at = lines.index(
        "controls passed (identical pairs, repeated items and gold items; every "
        "worker, before screening):"
    )
    assert lines[at + 1].startswith(f"  long: {n_long} of {n_long} checks by 2 workers: 100% [")
    assert lines[at + 2].startswith(f"  short: 0 of {n_short} checks by 2 workers: 0% [0%, ")
    assert "; against long -100 points [" in lines[at + 2]
    assert (
        "  (cost/reliable mean: rewards and the study link's fees of an item mean of "
        "reliability 0.8)" in lines
    )
    record = json.loads(
        harness_cli("compare-arms", "small", "--db", db, "--bootstrap", "20", "--json").output
    )
    assert [c["arm"] for c in record["controls"]] == ["long", "short"]
    assert record["controls"][0]["checks"] == n_long and record["controls"][1]["passed"] == 0
    assert (record["fees_of"], record["currency"]) == ("the study link", "USD")


def test_money_per_judgment_counts_the_platforms_fees():
    mturk, prolific = platform_named("mturk"), platform_named("prolific")
    # MTurk: 20% on a HIT of fewer than 10 assignments, at least $0.01 an assignment
    assert with_fees(0.025, Decimal("0.10"), 3, mturk) == pytest.approx(0.025 * 1.2)
    assert with_fees(0.005, Decimal("0.02"), 3, mturk) == pytest.approx(0.005 * 1.5)
    assert with_fees(0.025, Decimal("0.10"), 10, mturk) == pytest.approx(0.025 * 1.4)
    per_place = prolific.estimate(Decimal("1.00"), 1, 1)
    assert with_fees(0.1, Decimal("1.00"), 5, prolific) == pytest.approx(
        0.1 * float(per_place.total)
    )
    assert per_place.fees > 0
    assert with_fees(0.0, Decimal("0"), 5, mturk) == 0.0


@pytest.fixture
def judgment_reads(monkeypatch):
    """The study ids each read of a study's judgment table was for, from now on (the readers:
    the arms' and a whole study's)."""
    import harness.store.arm_judgments as arm_module
    import harness.store.judgment_table as table_module
    from harness.store.judgment_table import study_judgments

    reads = []

    def counted(session, study_id):
        reads.append(study_id)
        return study_judgments(session, study_id)

    monkeypatch.setattr(arm_module, "study_judgments", counted)
    monkeypatch.setattr(table_module, "study_judgments", counted)  # read there on each call
    return reads


def test_the_arms_are_read_in_one_read_keeping_the_control_rows_for_the_checks(
    worked, judgment_reads
):
    from harness.screening.controls import control_checks
    from harness.screening.stored import instrument_context
    from harness.store.arm_assignment import study_arms
    from harness.store.judgment_table import study_judgments

    db, posted = worked
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = find_study(session, "small")
            stored = read_arms(session, study)
            reads = len(judgment_reads)  # the table read below for comparison counts too
            assert study.id is not None
            table = study_judgments(session, study.id)
            contexts = {
                a.name: instrument_context(session, a.instrument_id)
                for a in study_arms(session, study.id)
            }
    finally:
        engine.dispose()
    assert reads == 1
    data = stored.data
    assert len(data.shown) == len(table)  # every judgment, controls too
    assert set(data.judgments["role"]) == {"item", "gold"}  # the comparison's: content only
    assert set(data.shown["role"]) == {"item", "gold", "identical", "repeat"}
    for arm, context in contexts.items():
        workers = {w for w, a in posted.arms.items() if a == arm}
        own = table[table["worker_id"].isin(workers)]
        expected = control_checks(own, context).assign(arm=arm)
        found = stored.checks[stored.checks["arm"] == arm].reset_index(drop=True)
        pd.testing.assert_frame_equal(found, expected[found.columns], check_dtype=False)


def test_characterizing_a_study_with_arms_reads_its_judgments_once(worked, judgment_reads):
    from harness.characterize.inputs import read_with_arms

    db, _ = worked
    instrument, arms = read_with_arms("small", db, "short")
    assert len(judgment_reads) == 1
    assert arms is not None and arms.data.arms == ["long", "short"]
    assert instrument.name == "small (arm short)"
    assert set(arms.data.arm_shown("short")["worker_id"]) == set(instrument.judgments["worker_id"])
