"""Rank stability (METHODS.md section 6): which items the instrument cannot put in order.

Two criteria, both over items with at least two values:

- **standard error**: item j lies within one standard error of item i when
  |m_j - m_i| <= se_i, with se_i = s_i / sqrt(n_i) (s_i the sample sd, ddof = 1). An item
  pair cannot be separated when either item lies within one standard error of the other,
  i.e. |m_i - m_j| <= max(se_i, se_j).
- **resolution** (when a resolution study gave t): j lies within the resolution of i when
  |m_j - m_i| < t, and a pair cannot be separated when its distance is below t (the same
  convention as the resolution's "item pairs below").

Distances are compared to se or t with a tolerance of 1e-9 (``TOLERANCE``), so floating-point
rounding of means does not split ties.

Reported: per item the number of other items within the criterion (its mean, median and max)
and the share of all item pairs that cannot be separated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.characterize.pair_counts import (
    PrefixRanks,
    first_at_most_below,
    first_more_than_above,
)

TOLERANCE = 1e-9


@dataclass(frozen=True)
class RankStability:
    criterion: str  # "standard error" or "resolution"
    threshold: float | None  # the resolution t, for that criterion
    neighbours: pd.Series  # item_id -> other items within the criterion
    share_inseparable: float
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "threshold": self.threshold,
            "share_inseparable": self.share_inseparable,
            "n_item_pairs": self.n_pairs,
            "neighbours_mean": float(self.neighbours.mean()),
            "neighbours_median": float(self.neighbours.median()),
            "neighbours_max": int(self.neighbours.max()),
        }


def rank_stability_se(summaries: pd.DataFrame) -> RankStability:
    """The standard-error criterion over ``summaries`` (index item_id; n, mean, sd_sample).

    O(n log^2 n): each item's neighbours are a run of the sorted means; a pair is inseparable
    when either item lies within the other's reach, so the inseparable pairs are the ordered
    (item, neighbour) pairs less the pairs where each lies within the other's reach. Those are
    counted from the item with the smaller reach: taking items by decreasing reach, each
    counts the neighbours already taken (`PrefixRanks`).
    """
    means = summaries["mean"].to_numpy(dtype=float)
    se = (summaries["sd_sample"] / np.sqrt(summaries["n"])).to_numpy(dtype=float)
    reach = se + TOLERANCE
    n = len(means)
    order = np.argsort(means, kind="stable")
    ordered = means[order]
    first = first_at_most_below(ordered, means, reach)  # sorted positions within reach
    stop = first_more_than_above(ordered, means, reach)
    counts = (stop - first - 1).astype(np.int64)  # not the item itself
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    by_reach = np.argsort(-reach, kind="stable")  # widest reach first
    taken = PrefixRanks(rank[by_reach])
    at = np.empty(n, dtype=np.int64)
    at[by_reach] = np.arange(n)
    mutual = taken.below(at, stop) - taken.below(at, first)  # within each other's reach
    inseparable = int(counts.sum() - mutual.sum())
    pairs = n * (n - 1) // 2
    return RankStability(
        criterion="standard error",
        threshold=None,
        neighbours=pd.Series(counts, index=summaries.index, name="neighbours"),
        share_inseparable=inseparable / pairs if pairs else float("nan"),
        n_pairs=pairs,
    )


def rank_stability_resolution(summaries: pd.DataFrame, threshold: float) -> RankStability:
    """The resolution criterion: other items closer than ``threshold`` to each item's mean."""
    means = summaries["mean"].to_numpy(dtype=float)
    ordered = np.sort(means)
    reach = threshold - TOLERANCE
    inside = np.searchsorted(ordered, means + reach, side="left") - np.searchsorted(
        ordered, means - reach, side="right"
    )
    counts = np.maximum(inside, 1) - 1  # not the item itself (none within a threshold <= 0)
    pairs = len(means) * (len(means) - 1) // 2
    below = pairs - pairs_at_least(means, threshold)
    return RankStability(
        criterion="resolution",
        threshold=threshold,
        neighbours=pd.Series(counts, index=summaries.index, name="neighbours"),
        share_inseparable=below / pairs if pairs else float("nan"),
        n_pairs=pairs,
    )


def pairs_at_least(means: np.ndarray, threshold: float) -> int:
    """How many item pairs i < j have |m_i - m_j| >= threshold (O(n log n), sorted means)."""
    ordered = np.sort(np.asarray(means, dtype=float))
    # for each i, the items j > i (in sorted order) with m_j >= m_i + threshold
    first = np.searchsorted(ordered, ordered + threshold - TOLERANCE, side="left")
    first = np.maximum(first, np.arange(len(ordered)) + 1)
    return int((len(ordered) - first).sum())
