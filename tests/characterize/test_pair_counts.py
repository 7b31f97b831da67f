"""Item-pair counting in O(n log^2 n) against the quadratic definitions it replaces.

Property-based (hypothesis): random means (on a grid of quarters, where ties and exact
boundary distances are common, and continuous), random systems (integer scores, where a
system can be constant on the pairs that reach a threshold, and continuous), random standard
errors. Counts must equal the quadratic definitions' exactly, correlations to 1e-6 (one-pass
sums over pairs lose digits where a side barely varies).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from harness.characterize import rank_stability_se
from harness.characterize.pair_counts import (
    PrefixRanks,
    first_at_least_above,
    first_at_most_below,
    first_less_than_below,
    first_more_than_above,
)
from harness.characterize.systems import distance_correlation
from tests.characterize import quadratic

THRESHOLDS = [0.0, 0.25, 0.45, 0.9, 1.8, 2.7, 3.6]


@st.composite
def means_arrays(draw: st.DrawFn, max_size: int = 40) -> np.ndarray:
    n = draw(st.integers(0, max_size))
    if draw(st.booleans()):
        return draw(hnp.arrays(np.float64, n, elements=st.integers(0, 40).map(lambda k: k / 4)))
    elements = st.floats(0, 10, allow_nan=False, allow_subnormal=False)
    return draw(hnp.arrays(np.float64, n, elements=elements))


@settings(max_examples=200, deadline=None)
@given(st.permutations(list(range(37))), st.data())
def test_prefix_ranks_count_the_ranks_below_h_among_the_first_b(permutation, data):
    rank = np.array(permutation)
    tree = PrefixRanks(rank)
    b = np.array(data.draw(st.lists(st.integers(0, len(rank)), min_size=1, max_size=20)))
    h = np.array(data.draw(st.lists(st.integers(0, len(rank)), min_size=len(b), max_size=len(b))))
    expected = [int((rank[:bq] < hq).sum()) for bq, hq in zip(b, h, strict=True)]
    assert tree.below(b, h).tolist() == expected


@settings(max_examples=300, deadline=None)
@given(means_arrays(), st.sampled_from([1e-9, 0.25 - 1e-9, 0.1, 0.3, 0.9 - 1e-9, 2.5]))
def test_bounds_are_where_the_floating_point_differences_cross_the_gap(values, gap):
    ordered = np.sort(values)
    positions = np.arange(len(ordered))
    for c in ordered:
        assert (
            first_at_least_above(ordered, np.array([c]), gap)[0]
            == np.r_[positions[ordered - c >= gap], len(ordered)][0]
        )
        assert (
            first_more_than_above(ordered, np.array([c]), gap)[0]
            == np.r_[positions[ordered - c > gap], len(ordered)][0]
        )
        assert (
            first_less_than_below(ordered, np.array([c]), gap)[0]
            == np.r_[positions[c - ordered < gap], len(ordered)][0]
        )
        assert (
            first_at_most_below(ordered, np.array([c]), gap)[0]
            == np.r_[positions[c - ordered <= gap], len(ordered)][0]
        )


def test_bounds_step_past_long_runs_of_equal_values_at_once():
    ordered = np.r_[np.zeros(5000), np.full(5000, 0.3), np.full(5000, 0.1 + 0.2)]
    ordered.sort()
    # 0.1 + 0.2 - 0.0 > 0.3 by one ulp: the run of 0.30000000000000004 is beyond, 0.3 is not
    assert first_more_than_above(ordered, np.array([0.0]), 0.3)[0] == 10000
    assert first_at_least_above(ordered, np.array([0.0]), 0.3)[0] == 5000


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(means_arrays(), st.data())
def test_distance_correlation_equals_the_quadratic_definition(means, data):
    n = len(means)
    integer = st.integers(0, 4).map(float)
    continuous = st.floats(-5, 5, allow_nan=False, allow_subnormal=False)
    scores = np.column_stack(
        [
            data.draw(hnp.arrays(np.float64, n, elements=integer)),
            data.draw(hnp.arrays(np.float64, n, elements=continuous)),
            np.full(n, 0.1),  # a constant system has no r
        ]
    )
    _assert_same_as_quadratic(means, scores)


def test_a_system_varying_by_round_off_on_the_pairs_has_no_distance_correlation():
    # The pairs at distance >= 0.45 (item 18 against the zeros) see a system that varies by
    # 1e-81 where its range is 1: flat, so no r (one-pass sums once gave it one of either sign).
    means = np.zeros(36)
    means[18], means[19] = 0.5, 0.25
    continuous = np.zeros(36)
    continuous[0], continuous[19] = 1.35779161e-81, 1.0
    scores = np.column_stack([np.zeros(36), continuous, np.full(36, 0.1)])
    _assert_same_as_quadratic(means, scores)
    got = distance_correlation(pd.Series(means), pd.DataFrame(scores), [0.45])
    assert np.isnan(got.loc[got["system"] == 1, "r"]).all()


def _assert_same_as_quadratic(means: np.ndarray, scores: np.ndarray) -> None:
    got = distance_correlation(pd.Series(means), pd.DataFrame(scores), THRESHOLDS)
    expected = quadratic.distance_correlation(means, scores, THRESHOLDS)
    for s in range(scores.shape[1]):
        for t, (r, count) in zip(THRESHOLDS, expected[s], strict=True):
            row = got[(got["system"] == s) & (got["threshold"] == t)].iloc[0]
            assert row["n_pairs"] == count
            if np.isnan(r):
                assert np.isnan(row["r"])
            else:
                # both sum over pairs in one pass, which loses digits when a side barely
                # varies; a pair counted wrongly moves r far more than this
                assert row["r"] == pytest.approx(r, abs=1e-6)


def test_distance_correlation_counts_pairs_in_the_items_own_order():
    # The signed differences run from the earlier item to the later one in the items' order:
    # reversing the items flips no product, but does change which pairs are "i < j".
    means = pd.Series([0.0, 3.0, 1.0, 7.0, 2.0])
    scores = pd.DataFrame({"s": [1.0, 0.0, 4.0, 2.0, 2.5]})
    got = distance_correlation(means, scores, [0.0, 1.5])
    expected = quadratic.distance_correlation(means.to_numpy(), scores.to_numpy(), [0.0, 1.5])
    assert got["n_pairs"].tolist() == [10, 7]
    assert got["r"].tolist() == pytest.approx([r for r, _ in expected[0]], abs=1e-12)


def test_a_system_without_a_score_on_an_item_of_a_reaching_pair_has_no_r():
    means = pd.Series([0.0, 1.0, 2.0, 5.0, 9.0])
    scores = pd.DataFrame({"s": [1.0, 2.0, np.nan, 4.0, 8.0]})
    got = distance_correlation(means, scores, [0.0, 3.0])
    expected = quadratic.distance_correlation(means.to_numpy(), scores.to_numpy(), [0.0, 3.0])
    assert np.isnan(got["r"].iloc[0]) and np.isnan(expected[0][0][0])
    # at 3.0 the item without a score (mean 2.0) reaches 5.0 and 9.0: no r either way
    assert np.isnan(got["r"].iloc[1]) and np.isnan(expected[0][1][0])


@settings(max_examples=300, deadline=None)
@given(means_arrays(), st.data())
def test_rank_stability_by_standard_error_equals_the_quadratic_definition(means, data):
    n = len(means)
    quarters = st.integers(0, 12).map(lambda k: k / 4)
    continuous = st.floats(0, 3, allow_nan=False, allow_subnormal=False)
    se = data.draw(hnp.arrays(np.float64, n, elements=st.one_of(quarters, continuous)))
    summaries = pd.DataFrame({"n": np.ones(n), "mean": means, "sd_sample": se})
    counts, inseparable = quadratic.rank_stability_se(means, se)
    got = rank_stability_se(summaries)
    assert got.neighbours.tolist() == counts.tolist()
    pairs = n * (n - 1) // 2
    assert got.n_pairs == pairs
    if pairs:
        assert got.share_inseparable == inseparable / pairs
