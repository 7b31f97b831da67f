"""The ratio difference function summed over pairs of values, through value counts.

delta2(c, k) = ((c - k) / (c + k))^2 (0 when c + k = 0), for values >= 0. Krippendorff's alpha
needs it summed over the ordered pairs of values within each unit (D_o) and over all pairs of
pooled values (D_e). Both are sums over pairs of *distinct* values weighted by their counts:

- few distinct values (up to ``EXACT_VALUES``): the pairs are summed directly, from a table of
  delta2 between the distinct values;
- many (continuous data): delta2 has no separable form, but for c, k > 0

      ((c - k) / (c + k))^2 = (c - k)^2 * integral_0^inf t exp(-t (c + k)) dt,

  so sum_ck w_c w_k delta2 = integral_0^inf 2 t A(t)^2 Var(t) dt, where A(t) = sum_c w_c
  exp(-t c) and Var(t) is the variance of the values under the weights w_c exp(-t c). The
  integrand is smooth and decays at both ends in s = ln t, where the trapezoidal rule converges
  exponentially: with step 0.2 the sum agrees with the pairwise one to ~1e-15 (relative; checked
  in tests against the pairwise sum). Each node costs one pass over the values (for small t, a
  Taylor series in central moments instead; for large t, only the small values, the others'
  weights having underflowed), so the cost is O(V) per node and ~40-200 nodes in all, instead
  of V^2 pairs. Zeros are handled exactly: delta2(0, k) = 1 for k > 0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

EXACT_VALUES = 1024  # up to this many distinct values, sum the pairs directly
_BLOCK_CELLS = 4_000_000  # float64 cells a direct pair computation holds at once (~32 MB)
_STEP = 0.2  # trapezoidal step in s = ln t
_LOWEST = -19.0  # s below which the integrand is < 1e-16 of the sum (values scaled to max 1)
_TAYLOR_REACH = 0.5  # t * max|c - mean| up to which the Taylor series is used
_TAYLOR_TERMS = 17  # terms (t |d|)^j / j! for j < 17: < 1e-18 at reach 0.5
_UNDERFLOW = 46.0  # weights exp(-t (c - c_min)) below exp(-46) ~ 1e-20 are left out
_NEGLIGIBLE = 1e-18  # stop when a node adds less than this share of the sum
_HIGHEST = 709.0  # s where exp(s) overflows (values 1e-308 of the largest are done by then)


def ratio_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """delta2 = ((a - b) / (a + b))^2, and 0 where a + b = 0 (broadcasting)."""
    total = a + b
    diff = a - b
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(diff, total, out=out, where=total != 0)
    return out * out


def ratio_pair_sum(values: np.ndarray, weights: np.ndarray) -> float:
    """sum_{c,k} w_c w_k delta2(v_c, v_k) over distinct values ``values`` (>= 0)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if len(values) <= EXACT_VALUES:
        return pairwise_ratio_sum(values, weights)
    return integral_ratio_sum(values, weights)


def pairwise_ratio_sum(values: np.ndarray, weights: np.ndarray) -> float:
    """The pair sum over every pair of distinct values, in row blocks: O(V^2)."""
    total = 0.0
    step = max(1, _BLOCK_CELLS // max(1, len(values)))
    for start in range(0, len(values), step):
        rows = slice(start, start + step)
        block = ratio_distance(values[rows, None], values[None, :])
        total += float(((weights[rows] @ block) * weights).sum())
    return total


def integral_ratio_sum(values: np.ndarray, weights: np.ndarray) -> float:
    """The pair sum through the integral of the module docstring: O(V) per node."""
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    positive = values > 0
    zero_weight = float(weights[~positive].sum())
    c, w = values[positive], weights[positive]
    total_zero = 2.0 * zero_weight * float(w.sum())  # delta2(0, k) = 1 both ways round
    if len(c) < 2:
        return total_zero
    c = c / c[-1]  # delta2 is scale-free: the largest value becomes 1
    lowest = float(c[0])
    shifted = c - lowest
    moments = _TaylorMoments(c, w)
    total = 0.0
    s = _LOWEST
    while True:
        t = math.exp(s)
        if t * moments.reach <= _TAYLOR_REACH:
            mass, variance = moments.at(t)
            value = 2.0 * t * t * math.exp(-2.0 * t * moments.mean) * mass * mass * variance
        else:
            keep = int(np.searchsorted(shifted, _UNDERFLOW / t, side="right"))
            p = w[:keep] * np.exp(-t * shifted[:keep])
            mass = float(p.sum())
            centre = float((p * c[:keep]).sum()) / mass
            d = c[:keep] - centre
            variance = float((p * d * d).sum()) / mass
            value = 2.0 * t * t * math.exp(-2.0 * t * lowest) * mass * mass * variance
        total += value
        if (t * lowest > 1.0 and value <= _NEGLIGIBLE * total) or s > _HIGHEST:
            break
        s += _STEP
    return total_zero + _STEP * total


class _TaylorMoments:
    """A(t) and Var(t) for small t from the central moments D_q = sum w (c - mean)^q.

    With d = c - mean, A(t) = exp(-t mean) sum_j (-t)^j / j! D_j, and likewise the weighted
    sums of d and d^2, so Var(t) = A2/A0 - (A1/A0)^2 with no cancellation to speak of (A1 is
    O(t D_2)). Used while t * max|d| <= 0.5, where 17 terms reach 1e-18.
    """

    def __init__(self, c: np.ndarray, w: np.ndarray) -> None:
        self.mean = float((w * c).sum() / w.sum())
        d = c - self.mean
        self.reach = float(np.abs(d).max())
        power = w.copy()
        moments = []
        for _ in range(_TAYLOR_TERMS + 2):
            moments.append(float(power.sum()))
            power = power * d
        self.moments = np.array(moments)
        self.factorial = np.array([math.factorial(j) for j in range(_TAYLOR_TERMS)], float)

    def at(self, t: float) -> tuple[float, float]:
        """(sum_c w_c exp(-t (c - mean)), Var(t))."""
        series = (-t) ** np.arange(_TAYLOR_TERMS) / self.factorial
        a0, a1, a2 = (float(series @ self.moments[p : p + _TAYLOR_TERMS]) for p in range(3))
        return a0, a2 / a0 - (a1 / a0) ** 2


def ratio_unit_sums(
    unit: np.ndarray, codes: np.ndarray, distinct: np.ndarray, n_units: int
) -> np.ndarray:
    """Per unit: sum over the ordered pairs of its values (i != j) of delta2.

    ``unit`` (sorted) and ``codes`` (index into ``distinct``) are parallel arrays, one entry
    per value. The values are first counted per (unit, distinct value); a unit's sum is then
    sum_{a,b} n_a n_b delta2(a, b) over its distinct values (equal values add 0), so the work
    grows with the distinct values per unit, not with the values. Units with the same number
    of distinct values are summed together as a units x s x s block.
    """
    width = len(distinct)
    keys = unit.astype(np.int64) * width + codes
    if n_units * width <= 8 * len(keys) + 1024:
        dense = np.bincount(keys, minlength=n_units * width)
        cell = np.flatnonzero(dense)
        counts = dense[cell].astype(np.float64)
    else:  # first appearances come grouped by unit, since ``unit`` is sorted
        inverse, cell = pd.factorize(keys)
        counts = np.bincount(inverse, minlength=len(cell)).astype(np.float64)
    cell_code = cell % width
    per_unit = np.bincount(cell // width, minlength=n_units)
    starts = np.concatenate(([0], np.cumsum(per_unit)[:-1]))
    table = ratio_distance(distinct[:, None], distinct[None, :]) if width <= 2048 else None
    out = np.zeros(n_units)
    for size in np.unique(per_unit[per_unit >= 2]):
        units = np.flatnonzero(per_unit == size)
        if size * size > _BLOCK_CELLS:  # a unit with very many distinct values
            for u in units:
                own = slice(starts[u], starts[u] + size)
                out[u] = ratio_pair_sum(distinct[cell_code[own]], counts[own])
            continue
        step = max(1, _BLOCK_CELLS // int(size * size))
        for first in range(0, len(units), step):
            sel = units[first : first + step]
            at = starts[sel][:, None] + np.arange(size)
            code, n = cell_code[at], counts[at]
            if table is not None:
                d = table[code[:, :, None], code[:, None, :]]
            else:
                v = distinct[code]
                d = ratio_distance(v[:, :, None], v[:, None, :])
            out[sel] = ((n[:, :, None] * d) * n[:, None, :]).sum(axis=(1, 2))
    return out
