"""Controls passed per arm: counts by hand, Wilson's and Newcombe's intervals recomputed from
their formulas with scipy's normal quantile, and the comparison carrying them."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

from harness.characterize.arm_controls import controls_passed
from harness.characterize.arms import compare_arms
from harness.errors import JudgmentsError
from harness.simulate.arms import simulate_arms


def _checks(arm: str, workers: dict[str, list[bool]]) -> list[dict[str, object]]:
    return [
        {"arm": arm, "worker_id": w, "passed": p, "control": "identical" if k % 2 else "gold"}
        for w, passed in workers.items()
        for k, p in enumerate(passed)
    ]


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    p = k / n
    centre = (2 * n * p + z * z) / (2 * (n + z * z))
    half = z * math.sqrt(4 * n * p * (1 - p) + z * z) / (2 * (n + z * z))
    return centre - half, centre + half


CHECKS = pd.DataFrame(
    _checks("a", {"w1": [True] * 9 + [False], "w2": [True] * 8})  # 17 of 18
    + _checks("b", {"w3": [True, False] * 5, "w4": [False] * 3 + [True] * 3})  # 8 of 16
)


def test_each_arm_counts_its_checks_and_workers_with_wilsons_interval():
    base, other = controls_passed(CHECKS, ["a", "b"], confidence=0.9)
    z = stats.norm.ppf(0.95)
    assert (base.checks, base.passed, base.workers, base.share) == (18, 17, 2, 17 / 18)
    assert (base.low, base.high) == pytest.approx(_wilson(17, 18, z), abs=1e-12)
    assert (other.checks, other.passed, other.workers) == (16, 8, 2)
    assert base.difference is None and base.by_control == {"gold": [9, 9], "identical": [8, 9]}


def test_the_difference_from_the_base_has_newcombes_interval():
    base, other = controls_passed(CHECKS, ["a", "b"])
    z = stats.norm.ppf(0.975)
    l1, u1 = _wilson(8, 16, z)
    l2, u2 = _wilson(17, 18, z)
    d = 8 / 16 - 17 / 18
    assert other.difference == pytest.approx(d)
    assert other.diff_low == pytest.approx(d - math.hypot(0.5 - l1, u2 - 17 / 18))
    assert other.diff_high == pytest.approx(d + math.hypot(u1 - 0.5, 17 / 18 - l2))
    assert other.diff_high < 0  # the base passes clearly more


def test_an_arm_without_checks_has_no_share_and_no_difference():
    base, other = controls_passed(CHECKS, ["a", "c"])
    assert other.checks == 0 and other.share is None and other.difference is None
    with pytest.raises(JudgmentsError, match="missing column"):
        controls_passed(CHECKS.drop(columns="passed"), ["a"])


def test_the_comparison_carries_controls_passed_in_the_arms_order():
    table = simulate_arms({"a": 1.0, "b": 2.0}, items=20, raters_per_item=3, seed=2)
    plain = compare_arms(table, resamples=20)
    assert plain.controls == []
    compared = compare_arms(table, arms=["b", "a"], resamples=20, controls=CHECKS)
    assert [c.arm for c in compared.controls] == ["b", "a"]
    assert compared.controls[1].difference == pytest.approx(17 / 18 - 8 / 16)
