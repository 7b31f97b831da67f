"""Two systems' Spearman rhos against one instrument: a test that holds its size.

Steiger's (1980) test (`harness.stats.dependent`) assumes Pearson correlations of normal
variables; on Spearman rhos it is anti-conservative (its variance is that of Pearson's r, and
a rank correlation varies more). harness compares Spearman rhos with a Fisher-z test whose
variance is the rhos' own, estimated from the data (methods.md section 6, "Comparing two
systems"):

- Spearman's rho as a functional, rho = 12 E[F(X) G(Y)] - 3 with F and G the marginal
  (mid-)distribution functions, has the influence function
  IF(x, y) = 12 [F(x) G(y) + E(1{X > x} G(Y)) + E(F(X) 1{Y > y})] - 3 (rho + 3),
  with ties counted half (1{X = x} / 2). Each item i gets IF_A,i for (T, A) and IF_B,i for
  (T, B), computed in O(n log n) from sorted ranks.
- In Fisher's z, w_i = IF_A,i / (1 - rho_A^2) - IF_B,i / (1 - rho_B^2), and
  Z = (atanh rho_A - atanh rho_B) / sqrt(var(w) / n), var with ddof = 1, two-tailed normal p.

The test needs no model of the data (no normality, any r_AB). For planning, where there are
no data, `spearman_mrds` evaluates the same variance on a fixed, seeded reference sample from
a trivariate normal whose Spearman correlations are the ones asked for (Pearson r =
2 sin(pi rho / 6)); its size over a grid of n, rho and r_AB is checked by
`scripts/calibrate_comparisons.py` and tabulated in methods.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import brentq

from harness.errors import InputError
from harness.stats.mrds import DEFAULT_P0S, DEFAULT_RS, check_r_p0, r_p0_table

REFERENCE_SIZE = 20_000
REFERENCE_SEED = 33
_ITERATIONS = 20
_MAX_Z = math.atanh(1 - 1e-9)


@dataclass(frozen=True)
class SpearmanComparison:
    """rho_a, rho_b (against the instrument), r_ab (between the systems), the test and the
    standard error of rho_b - rho_a (in rho units)."""

    n: int
    rho_a: float
    rho_b: float
    r_ab: float
    z: float
    p: float
    se: float


def compare_spearman(instrument: np.ndarray, a: np.ndarray, b: np.ndarray) -> SpearmanComparison:
    """The test of H0: rho(T, A) = rho(T, B) on n items (arrays aligned by item, no NaN)."""
    t, x, y = (np.asarray(v, dtype=float) for v in (instrument, a, b))
    n = len(t)
    if not len(x) == len(y) == n:
        raise InputError(f"expected three arrays of the same length, got {n}, {len(x)}, {len(y)}")
    if n < 4:
        raise InputError(f"n: at least 4 items are needed, got {n}")
    ft, fa, fb = (_mid_cdf(v) for v in (t, x, y))
    rho_a, rho_b, r_ab = _pearson(ft, fa), _pearson(ft, fb), _pearson(fa, fb)
    if not all(abs(r) < 1 for r in (rho_a, rho_b)):
        raise InputError("the test needs both rhos strictly between -1 and 1")
    inf_a, inf_b = _influence(ft, fa), _influence(ft, fb)
    z, p = _z(rho_a, rho_b, inf_a, inf_b)
    se = float(np.sqrt(np.var(inf_a - inf_b, ddof=1) / n))
    return SpearmanComparison(n=n, rho_a=rho_a, rho_b=rho_b, r_ab=r_ab, z=z, p=p, se=se)


def required_difference(instrument: np.ndarray, a: np.ndarray, b: np.ndarray, p0: float) -> float:
    """The smallest rho difference this pair's own variance lets the test call p < p0.

    The influence values stay those observed, and the higher rho moves up from the lower one,
    so at the observed difference the test's p is the observed p: a pair is told apart
    exactly when its difference reaches this figure.
    """
    t, x, y = (np.asarray(v, dtype=float) for v in (instrument, a, b))
    ft, fa, fb = (_mid_cdf(v) for v in (t, x, y))
    rho_a, rho_b = _pearson(ft, fa), _pearson(ft, fb)
    inf_a, inf_b = _influence(ft, fa), _influence(ft, fb)
    low = min(rho_a, rho_b)
    if rho_a <= rho_b:
        return _solve(lambda s: _z(low, low + s, inf_a, inf_b)[1] - p0, low)
    return _solve(lambda s: _z(low + s, low, inf_a, inf_b)[1] - p0, low)


def spearman_mrds(n: int, r: float, p0: float, *, r_ab: float | None = None) -> float:
    """The smallest sigma at which the test on rho_A = r, rho_B = r + sigma gives p < p0.

    Planning: the variance is that of a trivariate normal with Spearman correlations r,
    r + sigma (against the instrument) and r_ab (between the systems; defaults to r), from
    a fixed reference sample, so the same arguments always give the same figure. Solved as a
    fixed point: sigma = tanh(atanh r + z(1 - p0/2) sqrt(var(sigma) / n)) - r; NaN when the
    three correlations admit no normal variables on the way.
    """
    check_r_p0(r, p0)
    between = r if r_ab is None else r_ab
    if not -1 < between < 1:
        raise InputError(f"r_ab: expected a correlation between -1 and 1, got {between}")
    if n < 4:
        raise InputError(f"n: at least 4 items are needed, got {n}")

    z = float(stats.norm.isf(p0 / 2))
    sigma = 0.0
    for _ in range(_ITERATIONS):  # the variance moves slowly with sigma: a fixed point
        var = _reference_variance(round(r, 6), round(r + sigma, 6), round(between, 6))
        target = math.atanh(r) + z * math.sqrt(var / n) if math.isfinite(var) else math.inf
        if target >= _MAX_Z:
            return float("nan")  # no correlation below 1 is that far above r
        new = math.tanh(target) - r
        if abs(new - sigma) < 1e-7:
            return new
        sigma = new
    return sigma


def spearman_mrds_table(
    n: int, rs: Sequence[float] = DEFAULT_RS, p0s: Sequence[float] = DEFAULT_P0S
) -> pd.DataFrame:
    """`spearman_mrds` for each r (rows) and p0 (columns) at n items, r_AB = r."""
    return r_p0_table(lambda r, p0: spearman_mrds(n, r, p0), rs, p0s)


def _solve(excess: Callable[[float], float], low: float) -> float:
    """The root of a decreasing excess(sigma) on 0 < sigma < 1 - low; NaN when never reached.

    Bracketed by doubling steps from 0.001, since near sigma = 1 - low the three
    correlations may admit no variables at all (the excess is then 1, never a root).
    """
    top = (1 - low) * (1 - 1e-9)
    below, sigma = 1e-12, 0.001
    while sigma < top:
        if excess(sigma) < 0:
            return float(brentq(excess, below, sigma, xtol=1e-7))
        below, sigma = sigma, sigma * 2
    if excess(top) < 0:
        return float(brentq(excess, below, top, xtol=1e-7))
    return float("nan")


def _z(rho_a: float, rho_b: float, inf_a: np.ndarray, inf_b: np.ndarray) -> tuple[float, float]:
    """Fisher-z statistic of rho_b - rho_a sign convention: positive when rho_b > rho_a."""
    w = inf_b / (1 - rho_b**2) - inf_a / (1 - rho_a**2)
    var = float(np.var(w, ddof=1)) / len(w)
    if var <= 0:
        return float("nan"), float("nan")
    z = (math.atanh(rho_b) - math.atanh(rho_a)) / math.sqrt(var)
    return z, float(2 * stats.norm.sf(abs(z)))


def _mid_cdf(values: np.ndarray) -> np.ndarray:
    """F(x_i) = (#{x_j < x_i} + #{x_j = x_i} / 2) / n: mid-ranks, shifted and scaled."""
    f: np.ndarray = (stats.rankdata(values) - 0.5) / len(values)
    return f


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    da, db = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(da @ da) * float(db @ db))
    return float(da @ db) / denominator if denominator > 0 else float("nan")


def _influence(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Spearman's influence value of each item, from the mid-distribution values f and g."""
    fg = f * g
    out: np.ndarray = 12 * (fg + _above(f, g) + _above(g, f)) - 36 * fg.mean()
    return out


def _above(key: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(1/n) sum_j (1{key_j > key_i} + 1{key_j = key_i} / 2) weight_j, for each i."""
    n = len(key)
    order = np.argsort(key, kind="stable")
    sorted_key, sorted_weight = key[order], weight[order]
    total_from = np.concatenate([np.cumsum(sorted_weight[::-1])[::-1], [0.0]])
    first = np.searchsorted(sorted_key, sorted_key, side="left")
    after = np.searchsorted(sorted_key, sorted_key, side="right")
    strictly = total_from[after]
    tied = total_from[first] - total_from[after]
    out = np.empty(n)
    out[order] = strictly + tied / 2
    return out / n


@lru_cache(maxsize=4096)
def _reference_variance(rho_a: float, rho_b: float, r_ab: float) -> float:
    """n var(w) on the reference sample: the test's variance per item, for planning."""
    root = normal_cholesky(rho_a, rho_b, r_ab)
    if root is None:
        return float("nan")  # no such three variables
    x = _reference_normals() @ root.T
    n = len(x)
    ranks = [np.empty(n, dtype=np.int64) for _ in range(3)]
    for k in range(3):
        ranks[k][np.argsort(x[:, k])] = np.arange(n)
    inf_a, inf_b = (_ranked_influence(ranks[0], ranks[k]) for k in (1, 2))
    w = inf_b / (1 - rho_b**2) - inf_a / (1 - rho_a**2)
    return float(np.var(w, ddof=1))


def _ranked_influence(rank_x: np.ndarray, rank_y: np.ndarray) -> np.ndarray:
    """`_influence` for values without ties, from their 0-based ranks (no searching)."""
    n = len(rank_x)
    f, g = (rank_x + 0.5) / n, (rank_y + 0.5) / n

    def above(rank: np.ndarray, weight: np.ndarray) -> np.ndarray:
        ordered = np.empty(n)
        ordered[rank] = weight
        from_top = np.cumsum(ordered[::-1])[::-1]  # sum of weights at this rank or above
        out: np.ndarray = (from_top[rank] - weight / 2) / n
        return out

    fg = f * g
    influence: np.ndarray = 12 * (fg + above(rank_x, g) + above(rank_y, f)) - 36 * fg.mean()
    return influence


def normal_cholesky(rho_a: float, rho_b: float, r_ab: float) -> np.ndarray | None:
    """The Cholesky factor of the correlations of three normal variables (T, A, B) whose
    Spearman correlations are rho_a (T, A), rho_b (T, B) and r_ab (A, B), with Pearson
    r = 2 sin(pi rho / 6); None when no three normal variables have them."""
    if not all(-1 < r < 1 for r in (rho_a, rho_b, r_ab)):
        return None
    p = [2 * math.sin(math.pi * r / 6) for r in (rho_a, rho_b, r_ab)]
    cov = np.array([[1, p[0], p[1]], [p[0], 1, p[2]], [p[1], p[2], 1]])
    if np.linalg.eigvalsh(cov).min() <= 1e-9:
        return None
    return np.linalg.cholesky(cov)


@lru_cache(maxsize=1)
def _reference_normals() -> np.ndarray:
    return np.random.default_rng(REFERENCE_SEED).standard_normal((REFERENCE_SIZE, 3))


def difference_power(n: int, rho_a: float, rho_b: float, r_ab: float, p0: float = 0.05) -> float:
    """The chance that `compare_spearman` on n items tells rho_a from rho_b at p < p0
    (two-tailed), with the test's variance per item taken from the reference sample; nan when
    no three variables have these correlations."""
    check_r_p0(rho_a, p0)
    check_r_p0(rho_b, p0)
    variance = _reference_variance(round(rho_a, 4), round(rho_b, 4), round(r_ab, 4))
    if not math.isfinite(variance) or n < 4:
        return float("nan")
    shift = abs(math.atanh(rho_b) - math.atanh(rho_a)) / math.sqrt(variance / n)
    z = stats.norm.isf(p0 / 2)
    return float(stats.norm.sf(z - shift) + stats.norm.cdf(-z - shift))
