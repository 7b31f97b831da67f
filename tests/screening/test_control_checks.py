"""Each pass/fail control check on hand-built tables whose answers are known by construction,
and the checks agree with the heuristics that score them (H9 gold, H10 calibration)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening import ScreeningContext, calibration_failure, gold_failure
from harness.screening.controls import control_checks
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.scale import resolve_scale

TEN = ScreeningContext(resolve_scale(StudyType.RATING, ScaleSpec(min=0, max=10, step=1)))
COLUMNS = ["item_id", "worker_id", "value", "role"]


def _rows() -> pd.DataFrame:
    rows = [
        ("identical-001", "a", 9.0, "identical"),  # 9 is max - 10% of 0-10: passed
        ("identical-002", "a", 8.5, "identical"),  # below: failed
        ("x1", "a", 2.0, "item"),
        ("x1", "a", 4.5, "repeat"),  # 2.5 apart: passed
        ("x2", "a", 2.0, "item"),
        ("x2", "a", 4.6, "repeat"),  # more than 2.5: failed
        ("g1", "a", 6.0, "gold"),
        ("g2", "a", 3.0, "gold"),  # gold 5 and 1: one step, two
        ("identical-001", "b", 10.0, "identical"),
        ("identical-002", "b", np.nan, "identical"),  # not answered: no check
        ("x3", "b", 7.0, "item"),  # shown once: no check
    ]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["gold"] = frame["item_id"].map({"g1": 5.0, "g2": 1.0})
    return frame


def test_every_check_passes_or_fails_by_the_heuristics_tolerances():
    checks = control_checks(_rows(), TEN)
    found = {(r.worker_id, r.item_id, r.control): r.passed for r in checks.itertuples()}
    assert found == {
        ("a", "identical-001", "identical"): True,
        ("a", "identical-002", "identical"): False,
        ("a", "x1", "repeat"): True,
        ("a", "x2", "repeat"): False,
        ("a", "g1", "gold"): True,
        ("a", "g2", "gold"): False,
        ("b", "identical-001", "identical"): True,
    }


def test_a_repeated_gold_or_control_group_item_is_a_repeat_check_too():
    # the plan may repeat any content item; its first showing keeps the item's role
    frame = pd.DataFrame(
        [
            ("g1", "a", 5.0, "gold"),
            ("g1", "a", 9.0, "repeat"),  # 4 apart: failed
            ("c1", "a", 3.0, "control_group"),
            ("c1", "a", 3.0, "repeat"),  # passed
            ("g2", "a", 1.0, "gold"),  # shown once: a gold check only
        ],
        columns=COLUMNS,
    )
    frame["gold"] = frame["item_id"].map({"g1": 5.0, "g2": 1.0})
    checks = control_checks(frame, TEN)
    repeats = checks[checks["control"] == "repeat"].set_index("item_id")["passed"].to_dict()
    assert repeats == {"c1": True, "g1": False}
    h10 = calibration_failure(frame, TEN).set_index("worker_id")
    assert h10.loc["a", "evidence"] == 2 and h10.loc["a", "failures"] == 1


def test_the_checks_failed_are_what_h9_and_h10_count():
    frame = _rows()
    checks = control_checks(frame, TEN)
    calibration = checks[checks["control"] != "gold"].groupby("worker_id")["passed"]
    h10 = calibration_failure(frame, TEN).set_index("worker_id")
    for worker, passed in calibration:
        assert h10.loc[worker, "evidence"] == len(passed)
        assert h10.loc[worker, "failures"] == (~passed).sum()
    gold = checks[checks["control"] == "gold"].groupby("worker_id")["passed"]
    h9 = gold_failure(frame, TEN).set_index("worker_id")
    for worker, passed in gold:
        assert h9.loc[worker, "score"] == (~passed).mean()


def test_a_table_without_controls_has_no_checks():
    frame = pd.DataFrame([("x", "a", 3.0, "item")], columns=COLUMNS)
    checks = control_checks(frame, TEN)
    assert checks.empty and list(checks.columns) == ["worker_id", "item_id", "control", "passed"]
