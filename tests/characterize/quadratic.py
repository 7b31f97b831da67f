"""The quadratic definitions of two characterization figures, kept as references.

These visit every item pair, as METHODS.md section 6 states the figures; harness computes them
in O(n log^2 n) (`harness.characterize.pair_counts`). Tests compare the two on random inputs,
and ``scripts/bench_scale.py`` times both. Code as it was in harness before the change, blocks
of rows at a time so memory stays bounded.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TOLERANCE = 1e-9
_BLOCK = 2048
_PAIR_BLOCK = 2_000_000


def distance_correlation(
    means: np.ndarray, scores: np.ndarray, thresholds: list[float]
) -> list[list[tuple[float, int]]]:
    """Per system column, per threshold: (r, n_pairs) over the pairs i < j with
    |m_i - m_j| >= t - 1e-9, r being Pearson's between m_i - m_j and s_i - s_j."""
    m = np.asarray(means, dtype=float)
    n, k = len(m), scores.shape[1]
    edges = np.asarray(thresholds, dtype=float) - TOLERANCE  # sorted ascending
    bins = len(edges)
    per_bin = np.zeros((bins, k, 6))
    step = max(1, _PAIR_BLOCK // max(n, 1))
    for start in range(0, n, step):
        rows = np.arange(start, min(n, start + step))
        upper = rows[:, None] < np.arange(n)[None, :]
        x = (m[rows, None] - m[None, :])[upper]
        where = np.searchsorted(edges, np.abs(x), side="right") - 1
        inside = where >= 0
        x, where = x[inside], where[inside]
        count = np.bincount(where, minlength=bins)
        sum_x = np.bincount(where, x, minlength=bins)
        sum_xx = np.bincount(where, x * x, minlength=bins)
        for s in range(k):
            y = (scores[rows, s, None] - scores[None, :, s])[upper][inside]
            sum_y = np.bincount(where, y, minlength=bins)
            sum_yy = np.bincount(where, y * y, minlength=bins)
            sum_xy = np.bincount(where, x * y, minlength=bins)
            per_bin[:, s] += np.stack([count, sum_x, sum_y, sum_xx, sum_yy, sum_xy], axis=1)
    sums = per_bin[::-1].cumsum(axis=0)[::-1]  # distance >= t_b: bins b and above
    out = []
    range_x = np.ptp(m) if n else 0.0
    for s in range(k):
        column = []
        range_y = np.nanmax(scores[:, s]) - np.nanmin(scores[:, s]) if n else 0.0
        for ti in range(bins):
            count, sx, sy, sxx, syy, sxy = sums[ti, s]
            vx, vy = count * sxx - sx * sx, count * syy - sy * sy
            # a side whose differences vary by less than a millionth of its range over all items
            # (variance < 1e-12 range^2) has no r: round-off of the scores, not a ranking
            floor = 1e-12 * count * count
            usable = count >= 3 and vx > floor * range_x**2 and vy > floor * range_y**2
            r = (count * sxy - sx * sy) / np.sqrt(vx * vy) if usable else float("nan")
            column.append((float(r), int(count)))
        out.append(column)
    return out


def rank_stability_se(means: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, int]:
    """Per item, the other items within its standard error; and the item pairs where either
    lies within the other's (|m_i - m_j| <= max(se_i, se_j) + 1e-9)."""
    means = np.asarray(means, dtype=float)
    se = np.asarray(se, dtype=float)
    n = len(means)
    counts = np.zeros(n, dtype=np.int64)
    inseparable = 0
    for start in range(0, n, _BLOCK):
        rows = slice(start, min(n, start + _BLOCK))
        gap = np.abs(means[rows, None] - means[None, :])
        within = gap <= se[rows, None] + TOLERANCE
        counts[rows] = within.sum(axis=1) - 1  # not the item itself
        either = within | (gap <= se[None, :] + TOLERANCE)
        upper = np.arange(rows.start, rows.stop)[:, None] < np.arange(n)[None, :]
        inseparable += int((either & upper).sum())
    return counts, inseparable


def summaries_se(summaries: pd.DataFrame) -> np.ndarray:
    """se_i = s_i / sqrt(n_i), as `harness.characterize.rank_stability_se` computes it."""
    return (summaries["sd_sample"] / np.sqrt(summaries["n"])).to_numpy(dtype=float)
