"""Krippendorff's alpha: published worked examples, and agreement with the `krippendorff` package.

The PyPI package `krippendorff` (GPL) is a test-only dependency here; harness never imports it.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from harness.errors import InputError, JudgmentsError, StatsError
from harness.stats import LEVELS, alpha_from_arrays, krippendorff_alpha
from harness.stats.ratio import integral_ratio_sum, pairwise_ratio_sum

NAN = np.nan

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
# Communication, University of Pennsylvania (repository.upenn.edu/asc_papers/43), section C:
# 4 observers x 12 units, with missing values. Published: nominal .743 (section C), ordinal
# .815 (D), interval .849 (E), ratio .797 (F).
KRIPPENDORFF_2011_C = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def long_table(matrix: np.ndarray) -> pd.DataFrame:
    """Observers x units matrix (NaN = no value) as the long table, one row per cell."""
    observers, units = np.indices(matrix.shape)
    return pd.DataFrame(
        {
            "item_id": [f"u{u}" for u in units.ravel()],
            "worker_id": [f"w{o}" for o in observers.ravel()],
            "value": matrix.ravel(),
        }
    )


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_four_observers_with_missing_data(level, published):
    alpha = krippendorff_alpha(long_table(KRIPPENDORFF_2011_C), level)
    assert round(alpha, 3) == published


def test_krippendorff_2011_binary_two_observers():
    # Krippendorff (2011), section A: binary data, two observers, no missing data: alpha = 0.095.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert round(krippendorff_alpha(long_table(np.array([a, b], float)), "nominal"), 3) == 0.095


def test_krippendorff_2011_nominal_two_observers_with_labels():
    # Krippendorff (2011), section B: nominal data, two observers, no missing data: 0.692.
    a = "a a b b d c c c e d d a".split()
    b = "b a b b b c c c e d d d".split()
    items = [f"u{i}" for i in range(12)] * 2
    table = pd.DataFrame({"item_id": items, "worker_id": ["A"] * 12 + ["B"] * 12, "value": a + b})
    assert round(krippendorff_alpha(table, "nominal"), 3) == 0.692


def test_wikipedia_three_coders_fifteen_units():
    # The worked example of Wikipedia's "Krippendorff's alpha" article (3 coders x 15 units with
    # missing values): alpha_nominal = 0.691, alpha_interval = 0.811.
    data = np.array(
        [
            [NAN, NAN, NAN, NAN, NAN, 3, 4, 1, 2, 1, 1, 3, 3, NAN, 3],
            [1, NAN, 2, 1, 3, 3, 4, 3, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
            [NAN, NAN, 2, 1, 3, 4, 4, NAN, 2, 1, 1, 3, 3, NAN, 4],
        ]
    )
    table = long_table(data)
    assert round(krippendorff_alpha(table, "nominal"), 3) == 0.691
    assert round(krippendorff_alpha(table, "interval"), 3) == 0.811


def test_skipped_judgments_and_single_value_items_do_not_count():
    base = long_table(KRIPPENDORFF_2011_C)
    extra = pd.DataFrame(
        {
            "item_id": ["u0", "u1", "lonely", "u2"],
            "worker_id": ["x", "x", "w0", "y"],
            "value": [NAN, 9.0, 7.0, NAN],
            "skipped": [True, True, False, True],
        }
    )
    extra.loc[1, "value"] = NAN  # a skip has no value
    table = pd.concat([base.assign(skipped=False), extra], ignore_index=True)
    for level in LEVELS:
        assert krippendorff_alpha(table, level) == pytest.approx(
            krippendorff_alpha(base, level), abs=1e-12
        )


def test_alpha_is_undefined_without_pairable_values():
    table = pd.DataFrame({"item_id": ["a", "b"], "worker_id": ["w1", "w2"], "value": [1.0, 2.0]})
    with pytest.raises(StatsError, match="no item has two or more values"):
        krippendorff_alpha(table)


def test_alpha_is_undefined_when_every_pairable_value_is_the_same():
    table = pd.DataFrame({"item_id": ["a", "a"], "worker_id": ["w1", "w2"], "value": [3.0, 3.0]})
    with pytest.raises(StatsError, match="expected disagreement is 0"):
        krippendorff_alpha(table)


def test_ratio_refuses_negative_values():
    table = pd.DataFrame({"item_id": ["a", "a"], "worker_id": ["w1", "w2"], "value": [-1.0, 2.0]})
    with pytest.raises(InputError, match="ratio data must be >= 0"):
        krippendorff_alpha(table, "ratio")


def test_numeric_levels_refuse_text_values():
    table = pd.DataFrame({"item_id": ["a", "a"], "worker_id": ["w1", "w2"], "value": ["x", "2"]})
    with pytest.raises(JudgmentsError, match="are not numbers"):
        krippendorff_alpha(table, "interval")


def test_big_items_take_the_distinct_value_path_for_ratio(monkeypatch):
    # An item with more pairs of distinct values than one block holds is summed on its own.
    import harness.stats.ratio as ratio_module

    rng = np.random.default_rng(1)
    data = rng.integers(0, 6, size=(40, 5)).astype(float)
    data[rng.random(data.shape) < 0.2] = NAN
    expected = krippendorff.alpha(data, level_of_measurement="ratio")
    monkeypatch.setattr(ratio_module, "_BLOCK_CELLS", 5)
    assert krippendorff_alpha(long_table(data), "ratio") == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("zeros", [False, True])
def test_ratio_alpha_over_many_distinct_values_agrees_with_the_package(monkeypatch, zeros):
    # Continuous values: with the direct-sum limit lowered to 4 values, both D_e and the big
    # items' D_o go through the integral of harness.stats.ratio; the package sums every pair.
    import harness.stats.ratio as ratio_module

    rng = np.random.default_rng(3)
    truth = rng.lognormal(0, 1, size=40)
    data = truth[None, :] * rng.lognormal(0, 0.4, size=(30, 40))
    if zeros:
        data[rng.random(data.shape) < 0.05] = 0.0
    data[rng.random(data.shape) < 0.3] = NAN
    expected = krippendorff.alpha(data, level_of_measurement="ratio")
    monkeypatch.setattr(ratio_module, "EXACT_VALUES", 4)
    monkeypatch.setattr(ratio_module, "_BLOCK_CELLS", 50)
    assert krippendorff_alpha(long_table(data), "ratio") == pytest.approx(expected, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["uniform", "lognormal", "concentrated", "tiny and big", "grid"]),
    st.integers(2, 300),
    st.floats(0, 0.3),
    st.integers(0, 2**32 - 1),
)
def test_the_ratio_integral_equals_the_pairwise_sum(kind, size, zero_share, seed):
    # harness.stats.ratio: the integral form of sum_ck w_c w_k ((c - k) / (c + k))^2 against
    # the direct sum over every pair of distinct values.
    rng = np.random.default_rng(seed)
    values = {
        "uniform": lambda: rng.uniform(0, 10, size),
        "lognormal": lambda: rng.lognormal(0, 3, size),
        "concentrated": lambda: 100 + rng.normal(0, 1e-3, size),
        "tiny and big": lambda: np.r_[rng.uniform(1e-9, 1e-8, size), rng.uniform(1, 2, size)],
        "grid": lambda: rng.integers(1, 6, size).astype(float),
    }[kind]()
    values[rng.random(len(values)) < zero_share] = 0.0
    distinct, counts = np.unique(values, return_counts=True)
    weights = counts.astype(float)
    expected = pairwise_ratio_sum(distinct, weights)
    got = integral_ratio_sum(distinct, weights)
    # for close values c, k (concentrated: c / (c - k) up to about 1e5) either form may lose
    # eps * (c / (c - k))^2, about 2e-6 relative, to round-off; elsewhere they agree to 1e-12
    assert got == pytest.approx(expected, rel=1e-12 if kind != "concentrated" else 1e-5, abs=0)


# --- property test against the krippendorff package -------------------------------------------


@st.composite
def reliability_data(draw: st.DrawFn) -> tuple[np.ndarray, str]:
    """An observers x units matrix with missing values, and a level of measurement."""
    level = draw(st.sampled_from(LEVELS))
    shape = (draw(st.integers(2, 7)), draw(st.integers(1, 14)))
    kind = draw(st.sampled_from(["integer", "fraction", "continuous"]))
    low = 0.0 if level == "ratio" else draw(st.sampled_from([-5.0, 0.0, 1.0]))
    if kind == "integer":
        elements = st.integers(int(low), int(low) + draw(st.integers(1, 6))).map(float)
    elif kind == "fraction":
        elements = st.integers(0, 40).map(lambda k: low + k / 4)
    else:
        elements = st.floats(low, low + 10, allow_nan=False, allow_subnormal=False)
    data = draw(hnp.arrays(np.float64, shape, elements=elements))
    missing = draw(hnp.arrays(np.bool_, shape, elements=st.booleans()))
    if draw(st.booleans()):
        data[missing] = NAN
    return data, level


def reference_alpha(data: np.ndarray, level: str) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(krippendorff.alpha(data, level_of_measurement=level))


def pairable(data: np.ndarray) -> np.ndarray:
    counts = (~np.isnan(data)).sum(axis=0)
    return data[:, counts >= 2]


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reliability_data())
def test_alpha_agrees_with_the_krippendorff_package(case):
    data, level = case
    paired = pairable(data)
    values = paired[~np.isnan(paired)]
    # Where the package runs and alpha is defined: some item has two values that vary overall.
    assume(values.size >= 2 and np.unique(values).size >= 2)
    assume(np.unique(data[~np.isnan(data)]).size >= 2)
    expected = reference_alpha(data, level)
    assume(np.isfinite(expected))
    items = np.tile(np.arange(data.shape[1]), data.shape[0])
    got = alpha_from_arrays(items, data.ravel(), level)
    assert abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


def test_alpha_agrees_with_the_package_on_a_larger_sparse_design():
    rng = np.random.default_rng(7)
    truth = rng.uniform(0, 10, size=300)
    data = truth[None, :] + rng.normal(0, 1.5, size=(25, 300))
    data = np.round(np.clip(data, 0, 10) * 4) / 4
    data[rng.random(data.shape) < 0.6] = NAN
    items = np.tile(np.arange(300), 25)
    for level in LEVELS:
        expected = reference_alpha(data, level)
        assert alpha_from_arrays(items, data.ravel(), level) == pytest.approx(expected, abs=1e-9)


def test_values_differing_only_in_their_last_bits_give_the_exact_alpha_not_round_off():
    # Found by the property test: exactly, this is [[0, 0], [0, 1]] scaled, whose alpha is 0.
    data = np.array([[1.0, 1.0], [1.0, 1.0 + 2.2e-16]])
    items = np.tile(np.arange(2), 2)
    assert alpha_from_arrays(items, data.ravel(), "interval") == pytest.approx(
        reference_alpha(data, "interval"), abs=1e-9
    )
    assert alpha_from_arrays(items, data.ravel(), "interval") == pytest.approx(
        alpha_from_arrays(items, np.array([0.0, 0.0, 0.0, 1.0]), "interval"), abs=1e-12
    )
