"""Krippendorff's alpha for nominal, ordinal, interval and ratio data, in O(judgments).

Definition (Krippendorff 2004, *Content Analysis*, 2nd ed., ch. 11; Krippendorff 2011,
"Computing Krippendorff's alpha-reliability", Annenberg School repository):

    alpha = 1 - D_o / D_e = 1 - (n.. - 1) * sum_ck o_ck delta2_ck / sum_ck n_c n_k delta2_ck

with the coincidences o_ck = sum_u (number of c-k pairs of values in unit u) / (m_u - 1) over
the units with m_u >= 2 pairable values, n_c = sum_k o_ck, n.. = sum_c n_c, and delta2 the
difference function of the level:

- nominal:  delta2_ck = [c != k]
- ordinal:  delta2_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2
- interval: delta2_ck = (c - k)^2
- ratio:    delta2_ck = ((c - k) / (c + k))^2   (0 when c + k = 0)

Nothing here builds the coincidence matrix, a values x values matrix or a workers x items
matrix. Per level (n = number of pairable values, V = number of distinct pairable values):

- nominal: sum_ck o_ck [c != k] = sum_u (m_u^2 - sum_c n_uc^2) / (m_u - 1) and
  sum_ck n_c n_k [c != k] = n^2 - sum_c n_c^2, from counts of (item, label): O(n log n).
- interval: the ordered pairs of a set of m values have sum_{i,j} (x_i - x_j)^2 = 2 m SS with
  SS = sum (x - mean)^2, so both sums come from per-item and pooled sums of squared deviations
  (computed as deviations, not as S2 - S1^2, to avoid cancellation): O(n).
- ordinal: with the mid-rank R_c = sum_{g<c} n_g + n_c / 2 of each value in the pooled pairable
  values, sum_{g=c..k} n_g - (n_c + n_k)/2 = R_k - R_c for c < k, so ordinal alpha is interval
  alpha of the mid-ranks: O(n log n) (one sort).
- ratio: through value counts, as the package does: D_o sums, within each item, the pairs of
  its *distinct* values weighted by their counts (O(sum_u s_u^2), s_u the item's distinct
  values: 5 values on a 1-5 scale give at most 10 pairs however many raters); D_e sums the
  pairs of distinct pooled values weighted by their counts, directly up to 1,024 distinct
  values and through an integral over O(V) sums beyond (continuous data: ~1e-15 relative to
  the pairwise sum; see `harness.stats.ratio`).

Conventions match the PyPI package ``krippendorff`` (Castro 2017-): skips are not values, units
with fewer than two values drop out, ratio distance is 0 when c + k = 0. Ratio data must be
>= 0 (a ratio scale has an absolute zero; the metric is meaningless across signs).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from harness.errors import InputError, StatsError
from harness.stats.pairable import Pairable, pairable_from_codes, pairable_values
from harness.stats.ratio import ratio_pair_sum, ratio_unit_sums

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")

# Upper bound on the number of float64 cells a blocked pair computation holds at once (~32 MB).
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class AlphaParts:
    """The sums alpha is made of, kept per unit so that resampling units is a dot product.

    ``unit_do[u]`` = sum over ordered pairs (i != j) in unit u of delta2 / (m_u - 1), so
    ``do_sum = unit_do.sum()`` = sum_ck o_ck delta2_ck; ``de_sum`` = sum over ordered pairs of
    pooled pairable values of delta2 = sum_ck n_c n_k delta2_ck; ``n`` = n..
    """

    level: Level
    unit_do: np.ndarray
    m: np.ndarray
    n: int
    do_sum: float
    de_sum: float

    @property
    def d_o(self) -> float:
        """Observed disagreement D_o = sum_ck o_ck delta2_ck / n.."""
        return self.do_sum / self.n

    @property
    def d_e(self) -> float:
        """Expected disagreement D_e = sum_ck n_c n_k delta2_ck / (n.. (n.. - 1))."""
        return self.de_sum / (self.n * (self.n - 1))

    @property
    def alpha(self) -> float:
        """alpha = 1 - D_o / D_e (raises `StatsError` when D_e = 0: no variation to agree on)."""
        if self.de_sum <= 0:
            raise StatsError(
                "all pairable values are identical, so expected disagreement is 0 and alpha is "
                "undefined"
            )
        return 1.0 - (self.n - 1) * self.do_sum / self.de_sum


def krippendorff_alpha(judgments: pd.DataFrame, level: Level = "interval") -> float:
    """Krippendorff's alpha of a long judgment table (``item_id, worker_id, value[, skipped]``).

    See the module docstring for the formula and the source. Nominal values may be labels of
    any type; other levels need numbers.
    """
    _check_level(level)
    pairable = pairable_values(judgments, numeric=level != "nominal", count_workers=False)
    return alpha_parts(pairable, level).alpha


def alpha_from_arrays(items: np.ndarray, values: np.ndarray, level: Level = "interval") -> float:
    """Krippendorff's alpha from parallel arrays of item ids and values (NaN = no value)."""
    _check_level(level)
    values = np.asarray(values)
    if level == "nominal" and values.dtype.kind not in "iub":
        codes, labels = pd.factorize(pd.Series(values), sort=True)
        keep = codes >= 0
        pairable = pairable_from_codes(
            np.asarray(items)[keep], codes[keep].astype(np.int64), labels=np.asarray(labels)
        )
    else:
        pairable = pairable_from_codes(np.asarray(items), values)
    return alpha_parts(pairable, level).alpha


def alpha_parts(p: Pairable, level: Level) -> AlphaParts:
    """Compute the per-unit observed and pooled expected disagreement sums for ``level``."""
    _check_level(level)
    if level == "nominal":
        unit_do, de_sum = _nominal(p)
    elif level == "interval":
        unit_do, de_sum = _interval(p.unit, p.values.astype(np.float64), p.m)
    elif level == "ordinal":
        unit_do, de_sum = _interval(p.unit, ordinal_ranks(p.values), p.m)
    else:
        unit_do, de_sum = _ratio(p)
    return AlphaParts(
        level=level,
        unit_do=unit_do,
        m=p.m,
        n=p.n_values,
        do_sum=float(unit_do.sum()),
        de_sum=float(de_sum),
    )


def ordinal_ranks(values: np.ndarray) -> np.ndarray:
    """Mid-rank of each value among the pooled values: R_c = sum_{g<c} n_g + n_c / 2."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    mid = np.cumsum(counts) - counts / 2.0
    return mid[inverse].astype(np.float64)


def unit_sums_of_squares(unit: np.ndarray, x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per-unit sum of squared deviations from the unit mean (rows grouped by ``unit``)."""
    means = np.bincount(unit, weights=x, minlength=len(m)) / m
    dev = x - means[unit]
    return np.bincount(unit, weights=dev * dev, minlength=len(m))


def _interval(unit: np.ndarray, x: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, float]:
    # Shift-invariant: centring on the minimum first keeps values that differ in their last
    # bits exact (1 and 1 + 2.2e-16 become 0 and 2.2e-16), so their alpha is not round-off.
    x = x - x.min() if len(x) else x
    ss_u = unit_sums_of_squares(unit, x, m)
    unit_do = 2.0 * m * ss_u / (m - 1)
    dev = x - x.mean()
    de_sum = 2.0 * len(x) * float(np.dot(dev, dev))
    return unit_do, de_sum


def _nominal(p: Pairable) -> tuple[np.ndarray, float]:
    # Values (labels' codes, or numbers) are compared for equality only.
    _, codes = np.unique(p.values, return_inverse=True)
    n_labels = int(codes.max()) + 1
    keys, pair_counts = np.unique(p.unit * n_labels + codes, return_counts=True)
    same = np.bincount(
        keys // n_labels, weights=pair_counts.astype(np.float64) ** 2, minlength=p.n_units
    )
    m = p.m.astype(np.float64)
    unit_do = (m * m - same) / (m - 1)
    n_c = np.bincount(codes).astype(np.float64)
    n = float(len(codes))
    return unit_do, n * n - float(np.dot(n_c, n_c))


def _blocks(n_rows: int, row_width: int) -> Iterator[slice]:
    step = max(1, _BLOCK_CELLS // max(1, row_width))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _ratio(p: Pairable) -> tuple[np.ndarray, float]:
    """Per-unit D_o sums and the pooled D_e sum of the ratio level, from value counts."""
    values = p.values.astype(np.float64)
    if (values < 0).any():
        raise InputError(
            "ratio data must be >= 0 (a ratio scale has an absolute zero); use --level "
            "interval for values that can be negative"
        )
    codes, uniques = pd.factorize(values)
    distinct = np.asarray(uniques, dtype=np.float64)
    unit_do = ratio_unit_sums(p.unit, codes, distinct, p.n_units) / (p.m - 1)
    counts = np.bincount(codes, minlength=len(distinct)).astype(np.float64)
    return unit_do, ratio_pair_sum(distinct, counts)


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise InputError(f"level: expected one of {', '.join(LEVELS)}, got {level!r}")
