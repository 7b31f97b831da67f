"""Dependent correlations (Steiger 1980), MRDS and Bloch-Kraemer sample sizes."""

from __future__ import annotations

import numpy as np
import pytest

from harness.errors import InputError
from harness.stats.dependent import steiger_z, williams_t
from harness.stats.mrds import mrds, mrds_table
from harness.stats.sample_size import bloch_kraemer_items, bloch_kraemer_min_items


def test_williams_t_on_steigers_example():
    # Steiger (1980, Psychological Bulletin 87(2), 245-251), example as reproduced in the
    # documentation of psych::r.test (Revelle): n = 103, r12 = .4, r13 = .5, r23 = .1 gives
    # Williams' t = -0.89 (df = 100).
    result = williams_t(0.4, 0.5, 0.1, 103)
    assert round(result.statistic, 2) == -0.89
    assert result.df == 100


def test_steiger_z_on_steigers_example_and_against_pearson_filon():
    result = steiger_z(0.4, 0.5, 0.1, 103)
    # Same example: the pooled Z lies close to Williams' t (both about -0.89).
    assert result.statistic == pytest.approx(-0.8887, abs=1e-4)
    assert result.p == pytest.approx(0.374, abs=1e-3)


def test_both_tests_are_antisymmetric_and_zero_at_equal_correlations():
    for test in (williams_t, steiger_z):
        a = test(0.3, 0.6, 0.4, 50)
        b = test(0.6, 0.3, 0.4, 50)
        assert a.statistic == pytest.approx(-b.statistic) and a.p == pytest.approx(b.p)
        assert test(0.5, 0.5, 0.2, 50).statistic == 0 and test(0.5, 0.5, 0.2, 50).p == 1


@pytest.mark.parametrize("test", [williams_t, steiger_z])
def test_both_tests_hold_their_size_under_the_null(test):
    # Monte Carlo: samples of n = 40 from a trivariate normal with rho_jk = rho_jh = 0.5 and
    # rho_kh = 0.3: the share of p < 0.05 must be close to 0.05.
    rng = np.random.default_rng(2024)
    cov = np.array([[1, 0.5, 0.5], [0.5, 1, 0.3], [0.5, 0.3, 1]])
    sims, n = 4000, 40
    x = rng.multivariate_normal(np.zeros(3), cov, size=(sims, n))
    x = x - x.mean(axis=1, keepdims=True)
    s = np.einsum("sni,snj->sij", x, x)
    d = np.sqrt(np.einsum("sii->si", s))
    r = s / d[:, :, None] / d[:, None, :]
    ps = np.array([test(r[k, 0, 1], r[k, 0, 2], r[k, 1, 2], n).p for k in range(sims)])
    assert 0.04 < np.mean(ps < 0.05) < 0.06


def test_bad_correlations_are_input_errors():
    with pytest.raises(InputError, match="r_jk"):
        steiger_z(1.0, 0.5, 0.1, 10)
    with pytest.raises(InputError, match="at least 4"):
        williams_t(0.1, 0.5, 0.1, 3)


def test_mrds_is_where_steigers_p_crosses_p0():
    for r in (0.5, 0.7, 0.9):
        for p0 in (0.01, 0.05):
            sigma = mrds(353, r, p0)
            assert steiger_z(r, r + sigma, r, 353).p == pytest.approx(p0, abs=1e-9)
            assert steiger_z(r, r + sigma * 0.99, r, 353).p > p0


def test_mrds_table_shrinks_with_more_items_higher_r_and_looser_p0():
    table = mrds_table(353)
    assert list(table.index) == [0.5, 0.7, 0.9] and list(table.columns) == [0.01, 0.05]
    assert (table[0.01] > table[0.05]).all()
    assert table[0.05].is_monotonic_decreasing
    assert (mrds_table(3000) < table).all().all()
    assert mrds(5, 0.5, 0.01) > 0.45  # five items: only near-perfect correlations separate


def test_bloch_kraemer_formula():
    # docs/methods.md section 5: N_c = z^2 (1 + a)(3 - a) / (4 p (1 - p)(1 - a)) - a, one-tailed z.
    z = 1.6448536269514722
    a, p = 0.8, 0.5
    expected = z * z * 1.8 * 2.2 / (4 * 0.25 * 0.2) - 0.8
    assert bloch_kraemer_items(p, a, 0.05) == pytest.approx(expected)
    assert bloch_kraemer_min_items(0.5, 0.8, 0.05) == 53
    assert bloch_kraemer_min_items(0.5, 0.667, 0.05) == 31
    # Rarer categories and stricter alpha_min need more items.
    assert bloch_kraemer_items(0.1, 0.8) > bloch_kraemer_items(0.5, 0.8)
    assert bloch_kraemer_items(0.5, 0.9) > bloch_kraemer_items(0.5, 0.8)
    with pytest.raises(InputError):
        bloch_kraemer_items(0.0)
