"""Wilson's interval against scipy's, and Newcombe's interval for a difference of proportions
against the values Newcombe (1998) publishes for it."""

from __future__ import annotations

import pytest
from scipy import stats

from harness.errors import StatsError
from harness.stats.proportions import newcombe_difference, wilson_interval


@pytest.mark.parametrize(("k", "n"), [(0, 1), (0, 10), (3, 10), (81, 263), (50, 50), (1, 2)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_interval_is_scipys(k, n, confidence):
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert wilson_interval(k, n, confidence) == pytest.approx(
        (expected.low, expected.high), abs=1e-12
    )


# Newcombe, R. G. (1998). Interval estimation for the difference between independent
# proportions: comparison of eleven methods. Statistics in Medicine 17, 873-890, Table II,
# method 10 (the score interval without continuity correction), to its four decimals.
PUBLISHED = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("counts", "interval"), PUBLISHED)
def test_newcombes_interval_matches_his_published_table(counts, interval):
    k1, n1, k2, n2 = counts
    d, low, high = newcombe_difference(k1, n1, k2, n2)
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert (low, high) == pytest.approx(interval, abs=5e-5)


def test_a_proportion_without_trials_is_refused_with_the_counts():
    with pytest.raises(StatsError, match="got 3 of 0"):
        wilson_interval(3, 0)
    with pytest.raises(StatsError, match="got 5 of 4"):
        newcombe_difference(1, 2, 5, 4)
