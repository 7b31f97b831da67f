"""The relabeling test of a difference of arms' alphas (`harness.characterize.arm_relabel`):
the statistic of every split is the difference of the `krippendorff` package's alphas of its
two sides, the splits keep each arm's number of values, and the p-value and interval are the
stated functions of the relabeled differences."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from harness.characterize.arm_alpha import midranks, weighted_alphas
from harness.characterize.arm_relabel import Sides, draw_splits, relabeling_test
from harness.errors import StatsError
from harness.simulate.arms import simulate_arms

LEVELS = ["interval", "ordinal", "nominal"]


def _kalpha(rows: pd.DataFrame, level: str) -> float:
    data = rows.pivot_table(index="worker_id", columns="item_id", values="value").to_numpy()
    return krippendorff.alpha(data, level_of_measurement=level)


def _coded(table: pd.DataFrame) -> tuple[np.ndarray, int]:
    units = pd.factorize(table["item_id"], sort=True)[0]
    return units, int(units.max()) + 1


@pytest.fixture(scope="module")
def two_arms() -> pd.DataFrame:
    """12 items, 4 raters per item per arm in HITs of 6: 8 workers per arm."""
    return simulate_arms({"a": 1.0, "b": 2.0}, items=12, raters_per_item=4, items_per_hit=6, seed=5)


@pytest.mark.parametrize("level", LEVELS)
def test_the_difference_of_any_split_is_the_difference_of_krippendorffs_alphas(two_arms, level):
    """Uneven splits leave some items with fewer than two values on a side: they drop out of
    that side's alpha, as in the package, and ordinal mid-ranks are those of the side's own
    pairable values."""
    units, n_units = _coded(two_arms)
    workers = two_arms["worker_id"].unique()
    rng = np.random.default_rng(0)
    for _ in range(5):
        side = set(rng.choice(workers, size=int(rng.integers(3, 13)), replace=False))
        in_arm = two_arms["worker_id"].isin(side).to_numpy()
        expected = _kalpha(two_arms[in_arm], level) - _kalpha(two_arms[~in_arm], level)
        sides = Sides(units, two_arms["value"].to_numpy(), n_units, level)
        got = sides.differences(in_arm[None, :].astype(float))[0]
        assert got == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("level", LEVELS)
def test_the_observed_difference_is_the_arms_difference(two_arms, level):
    units, n_units = _coded(two_arms)
    in_arm = (two_arms["arm"] == "b").to_numpy()
    test = relabeling_test(
        units,
        two_arms["worker_id"].to_numpy(),
        two_arms["value"].to_numpy(),
        in_arm,
        n_units,
        level,
        50,
        0.95,
        np.random.default_rng(0),
    )
    a, b = (_kalpha(two_arms[two_arms["arm"] == arm], level) for arm in "ab")
    assert test.difference == pytest.approx(b - a, abs=1e-10)


def test_p_value_and_interval_are_the_stated_functions_of_the_relabeled_differences(two_arms):
    units, n_units = _coded(two_arms)
    in_arm = (two_arms["arm"] == "b").to_numpy()
    workers, values = two_arms["worker_id"].to_numpy(), two_arms["value"].to_numpy()
    test = relabeling_test(
        units, workers, values, in_arm, n_units, "interval", 400, 0.9, np.random.default_rng(3)
    )
    d, r = test.difference, test.relabeled
    assert len(r) == 400 and np.isfinite(r).all()
    low, high = np.percentile(r, [5, 95])
    assert (test.ci_low, test.ci_high) == pytest.approx((d - high, d - low))
    above, below = (1 + (r >= d).sum()) / 401, (1 + (r <= d).sum()) / 401
    assert test.p == pytest.approx(min(1.0, 2 * min(above, below)))
    assert test.se == pytest.approx((high - low) / (2 * stats.norm.ppf(0.95)))
    # the interval excludes 0 exactly when the difference lies outside the relabeled quantiles
    assert (test.ci_low > 0 or test.ci_high < 0) == (d > high or d < low)


def test_a_split_keeps_the_arms_number_of_values_even_when_workers_did_different_numbers():
    counts = np.array([20] * 15 + [10] * 30)  # arm a: 15 HITs of 20; arm b: 30 HITs of 10
    taken = draw_splits(counts, 300, 2000, np.random.default_rng(1))
    assert ((taken @ counts) == 300).all()
    # every worker can land in the arm: big HITs in some splits, small ones in others
    share = taken.mean(axis=0)
    assert (share > 0.2).all() and (share < 0.9).all()
    # with equal counts a split is a uniform draw of the arm's workers: each worker in it with
    # probability 15/45 (binomial se over 2000 splits ~ 0.011)
    even = draw_splits(np.full(45, 20), 300, 2000, np.random.default_rng(2))
    assert (even.sum(axis=1) == 15).all()
    assert np.abs(even.mean(axis=0) - 1 / 3).max() < 0.05


def test_a_worker_in_both_arms_is_refused():
    with pytest.raises(StatsError, match="worker w1 has values in both arms"):
        relabeling_test(
            np.array([0, 0, 1, 1]),
            np.array(["w1", "w2", "w1", "w3"]),
            np.array([1.0, 2.0, 3.0, 4.0]),
            np.array([True, False, False, True]),
            2,
            "interval",
            10,
            0.95,
            np.random.default_rng(0),
        )


tables = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 5), st.integers(1, 5), st.booleans()),
    min_size=4,
    max_size=30,
    unique_by=lambda t: (t[0], t[1]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=tables, level=st.sampled_from(LEVELS), scale=st.floats(0.5, 3), shift=st.floats(-5, 5))
def test_weighted_alpha_of_0_1_weights_is_krippendorffs_alpha_of_the_kept_values(
    rows, level, scale, shift
):
    """Any small table (item, worker, value) and any 0/1 weights: alpha of the weighting is
    the package's alpha of the values weighted 1; interval alpha is unchanged by rescaling and
    shifting the values."""
    table = pd.DataFrame(rows, columns=["item_id", "worker_id", "value", "kept"])
    kept = table[table["kept"]]
    pairs = kept.groupby("item_id").size()
    values = kept[kept["item_id"].map(pairs) >= 2]["value"]
    if values.nunique() < 2:
        return  # no pairable variation: alpha is undefined (NaN here, an error there)
    units = table["item_id"].to_numpy()
    n_units = 5
    v = table["kept"].to_numpy(dtype=float)[None, :]
    expected = krippendorff.alpha(
        kept.pivot_table(index="worker_id", columns="item_id", values="value").to_numpy(),
        level_of_measurement=level,
    )
    x = table["value"].to_numpy(dtype=float)
    if level == "ordinal":
        codes = pd.factorize(table["value"], sort=True)[0]
        big_v = np.bincount(units, weights=v[0], minlength=n_units)
        x = midranks(codes, int(codes.max()) + 1, v * (big_v[units] >= 2))
    elif level == "nominal":
        x = pd.factorize(table["value"], sort=True)[0]
    got = weighted_alphas(units, x, n_units, np.ones((1, n_units)), v, nominal=level == "nominal")[
        0
    ]
    assert got == pytest.approx(expected, abs=1e-9)
    if level == "interval":
        moved = weighted_alphas(units, x * scale + shift, n_units, np.ones((1, n_units)), v)[0]
        assert moved == pytest.approx(got, abs=1e-9)
