"""Bootstrap of alpha: the vectorised resamples equal alpha recomputed on resampled data."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from numpy import nan

from harness.errors import InputError
from harness.stats import LEVELS, Verdict, bootstrap_alpha, interval_warning, verdict
from harness.stats.alpha import alpha_parts
from harness.stats.bootstrap import (
    UnitStats,
    coincidence_cells,
    coincidence_deltas,
    kalpha_default_draws,
)
from harness.stats.pairable import pairable_from_codes
from harness.stats.reliability import DEFAULT_ALPHA_MIN, study_alpha_min


def noisy_ratings(seed: int = 3, raters: int = 9, items: int = 40) -> np.ndarray:
    """Raters x items, 0..10 in quarter steps, about a third missing."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 10, size=items)
    data = np.round(np.clip(truth + rng.normal(0, 2, size=(raters, items)), 0, 10) * 4) / 4
    data[rng.random(data.shape) < 0.35] = np.nan
    return data


def as_pairable(data: np.ndarray):
    items = np.tile(np.arange(data.shape[1]), data.shape[0])
    return pairable_from_codes(items, data.ravel())


def package_alpha(data: np.ndarray, level: str) -> float:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(krippendorff.alpha(data, level_of_measurement=level))


@pytest.mark.parametrize("level", LEVELS)
def test_each_units_resample_is_alpha_of_the_resampled_items(level):
    data = noisy_ratings()
    p = as_pairable(data)
    stats = UnitStats(p, alpha_parts(p, level))
    # Small integer item ids are used as codes directly: units are the pairable columns in order.
    pairable_columns = np.flatnonzero((~np.isnan(data)).sum(axis=0) >= 2)
    rng = np.random.default_rng(11)
    counts = np.stack(
        [np.bincount(rng.integers(0, p.n_units, p.n_units), minlength=p.n_units) for _ in range(6)]
    )
    got = stats.alphas(counts.astype(float))
    for row, expected_counts in zip(got, counts, strict=True):
        resampled = data[:, np.repeat(pairable_columns, expected_counts)]
        assert row == pytest.approx(package_alpha(resampled, level), abs=1e-9)


def test_the_bootstrap_is_seeded():
    table = long_table(noisy_ratings())
    first = bootstrap_alpha(table, "interval", resamples=200, seed=5)
    again = bootstrap_alpha(table, "interval", resamples=200, seed=5)
    other = bootstrap_alpha(table, "interval", resamples=200, seed=6)
    np.testing.assert_array_equal(first.samples, again.samples)
    assert not np.array_equal(first.samples, other.samples)


@pytest.mark.parametrize("method", ["units", "kalpha"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_interval_brackets_alpha_and_q_is_the_share_below_alpha_min(method, level):
    result = bootstrap_alpha(long_table(noisy_ratings()), level, method=method, alpha_min=0.7)
    assert result.method == method and result.resamples == 1000
    assert result.ci_low < result.alpha < result.ci_high
    assert result.q_below_min == pytest.approx(np.mean(result.samples < 0.7))
    qs = [result.q_table[a] for a in sorted(result.q_table)]
    assert qs == sorted(qs)  # q grows with alpha_min
    assert set(result.q_table) >= {0.9, 0.8, 0.7, 0.667, 0.6, 0.5}


@pytest.mark.parametrize("level", LEVELS)
def test_kalpha_draws_from_the_observed_coincidences(level):
    p = as_pairable(noisy_ratings())
    parts = alpha_parts(p, level)
    deltas, weights = coincidence_deltas(p, level)
    # The coincidences sum to n.., and their delta-weighted mean is D_o.
    assert weights.sum() == pytest.approx(p.n_values)
    assert np.dot(weights, deltas) / p.n_values == pytest.approx(parts.d_o, rel=1e-12)


def test_kalpha_centres_on_alpha_and_narrows_with_more_draws():
    table = long_table(noisy_ratings())
    few = bootstrap_alpha(table, "interval", method="kalpha", kalpha_draws=100)
    many = bootstrap_alpha(table, "interval", method="kalpha", kalpha_draws=100_000)
    assert np.mean(many.samples) == pytest.approx(many.alpha, abs=2e-3)
    assert many.ci_high - many.ci_low < (few.ci_high - few.ci_low) / 10
    assert many.draws == 100_000


# Hayes & Krippendorff (2007), Communication Methods and Measures 1(1), 77-89, Table 1: five
# observers code 40 units on an ordinal 0-3 scale (NaN: not coded). Ordinal alpha .7598, nominal
# .4765 (the paper; the same data and values are in tidycomm's tests, tests/testdata/hayes.R).
HAYES = np.array(
    [
        [
            1,
            1,
            2,
            nan,
            0,
            0,
            1,
            1,
            2,
            2,
            nan,
            0,
            1,
            3,
            1,
            1,
            2,
            1,
            1,
            0,
            0,
            0,
            2,
            0,
            1,
            0,
            0,
            1,
            1,
            1,
            1,
            2,
            2,
            3,
            2,
            2,
            2,
            2,
            2,
            1,
        ],
        [
            1,
            1,
            3,
            0,
            0,
            0,
            0,
            nan,
            2,
            1,
            1,
            0,
            2,
            3,
            1,
            1,
            1,
            2,
            1,
            0,
            0,
            0,
            3,
            0,
            2,
            1,
            0,
            2,
            1,
            1,
            1,
            1,
            2,
            2,
            2,
            2,
            2,
            2,
            2,
            1,
        ],
        [
            2,
            0,
            3,
            0,
            0,
            0,
            2,
            2,
            2,
            1,
            0,
            0,
            2,
            2,
            1,
            1,
            2,
            3,
            0,
            0,
            1,
            nan,
            3,
            0,
            nan,
            1,
            0,
            1,
            2,
            2,
            0,
            2,
            nan,
            2,
            2,
            3,
            2,
            nan,
            2,
            1,
        ],
        [
            nan,
            1,
            3,
            nan,
            nan,
            nan,
            nan,
            0,
            nan,
            1,
            0,
            0,
            2,
            2,
            nan,
            nan,
            nan,
            3,
            1,
            nan,
            1,
            0,
            3,
            0,
            2,
            1,
            1,
            2,
            2,
            nan,
            nan,
            1,
            2,
            2,
            nan,
            nan,
            nan,
            1,
            2,
            nan,
        ],
        [
            2,
            nan,
            nan,
            0,
            0,
            0,
            1,
            nan,
            2,
            nan,
            nan,
            nan,
            nan,
            3,
            1,
            1,
            2,
            nan,
            nan,
            0,
            nan,
            0,
            nan,
            nan,
            2,
            nan,
            0,
            nan,
            nan,
            2,
            0,
            nan,
            2,
            nan,
            2,
            2,
            2,
            2,
            nan,
            1,
        ],
    ]
)


def test_hayes_and_krippendorffs_example_gives_the_macros_interval():
    # The KALPHA macro (and Krippendorff's revised bootstrap algorithm) draws
    # M = min(25 Q, (m - 1) n.. / 2) pairs per resample, Q the non-zero coincidence cells.
    # Here Q = 14 of the 4 x 4 cells, m = 5 observers, n.. = 159 pairable values:
    # M = min(350, 318) = 318, and the 95% interval is [.715, .802].
    table = long_table(HAYES)
    assert package_alpha(HAYES, "ordinal") == pytest.approx(0.7598, abs=5e-5)
    result = bootstrap_alpha(table, "ordinal", method="kalpha", resamples=5000, seed=0)
    assert result.alpha == pytest.approx(0.7598, abs=5e-5)
    assert result.draws == 318
    assert (result.ci_low, result.ci_high) == pytest.approx((0.715, 0.802), abs=2e-3)


def test_the_macros_draws_count_the_non_zero_cells_of_the_coincidence_matrix():
    data = noisy_ratings()
    p = as_pairable(data)
    # The coincidence matrix, unit by unit, as Krippendorff (2011) defines it.
    values = np.unique(data[~np.isnan(data)])
    o = np.zeros((len(values), len(values)))
    for column in data.T:
        present = column[~np.isnan(column)]
        if len(present) < 2:
            continue
        for i, c in enumerate(present):
            for j, k in enumerate(present):
                if i != j:
                    o[np.searchsorted(values, c), np.searchsorted(values, k)] += 1 / (
                        len(present) - 1
                    )
    delta, cells, o_ck = coincidence_cells(p, "interval")
    assert len(cells) == np.count_nonzero(o)
    assert np.sort(o_ck) == pytest.approx(np.sort(o[o > 0]))
    observers = int(p.m.max())  # codes without worker ids: the most values of one unit
    expected = min(25 * np.count_nonzero(o), round((observers - 1) * p.n_values / 2))
    assert kalpha_default_draws(p, "interval") == expected
    table = long_table(data)
    workers = table.dropna()["worker_id"].nunique()
    assert bootstrap_alpha(table, "interval", method="kalpha").draws == min(
        25 * np.count_nonzero(o), round((workers - 1) * p.n_values / 2)
    )


def test_units_resamples_without_variation_are_left_out():
    # Two items: one where everyone says 1, one where everyone says 2. A resample that draws the
    # same item twice has no variation at all: alpha is undefined there.
    table = pd.DataFrame(
        {"item_id": list("aabb"), "worker_id": ["x", "y"] * 2, "value": [1.0, 1.0, 2.0, 2.0]}
    )
    result = bootstrap_alpha(table, "interval", resamples=400, seed=1)
    assert 100 < result.n_undefined < 300
    assert np.isnan(result.samples).sum() == result.n_undefined
    assert result.ci_low == result.ci_high == 1.0


def test_bad_bootstrap_options_are_input_errors():
    table = long_table(noisy_ratings())
    with pytest.raises(InputError, match="bootstrap method"):
        bootstrap_alpha(table, method="jackknife")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="resamples must be >= 1"):
        bootstrap_alpha(table, resamples=0)


def test_verdicts_follow_krippendorffs_cut_offs():
    # Krippendorff (2004), Content Analysis, 2nd ed., p. 241: rely on alpha >= .800; .667 to
    # .800 for tentative conclusions only.
    assert verdict(0.8) is Verdict.RELIABLE
    assert verdict(0.7999) is Verdict.TENTATIVE
    assert verdict(0.667) is Verdict.TENTATIVE
    assert verdict(0.6669) is Verdict.UNRELIABLE
    assert interval_warning(0.70, 0.667) is None
    assert "reaches below alpha_min = 0.667" in (interval_warning(0.66, 0.667) or "")


def test_a_studys_alpha_min_is_its_own_else_its_specs_else_the_default():
    assert study_alpha_min(0.0, {"alpha_min": 0.9}) == 0.0  # a stored zero is a choice
    assert study_alpha_min(0.75, {"alpha_min": 0.9}) == 0.75
    assert study_alpha_min(None, {"alpha_min": 0.9}) == 0.9  # stored before the column
    assert study_alpha_min(None, {}) == DEFAULT_ALPHA_MIN == 0.667


def long_table(matrix: np.ndarray) -> pd.DataFrame:
    observers, units = np.indices(matrix.shape)
    return pd.DataFrame(
        {"item_id": units.ravel(), "worker_id": observers.ravel(), "value": matrix.ravel()}
    )
