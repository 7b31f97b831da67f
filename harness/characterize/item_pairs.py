"""How many item pairs of WS353 lie above a distance: harness's 353 items and the published set.

The published resolution study counts 61,425 unique pairwise distances, 33,359 of them above
its resolution of 1.8. 61,425 = 351 x 350 / 2: the published set is WS353 less two rows, and
the rows that give both figures are the identical-word calibration pair (tiger, tiger) and
(money, bank), the second copy of (bank, money) in reverse word order, with each item's mean as
the distribution prints it (2 decimals) and the distance compared as computed in floating
point: fl|m_i - m_j| > 1.8. Among the 73 item pairs of that set whose printed means differ by
exactly 1.80, the floating-point difference lands above 1.8 for 20 (|7.35 - 9.15| gives
1.8000000000000007, |6.77 - 4.97| gives 1.7999999999999998), so the published count counts
those 20 as above and the other 53 as not. (Dropping some other two rows of WS353 can give 33,359 by
chance too, 99 of the 62,128 ways do; these two are the ones with a reason.)

harness keeps all 353 rows as items (the calibration pair and both word orders are items a
study can show) and recomputes each mean from the votes; it compares distances with a
tolerance of 1e-9, so a printed 1.80 is always "at" 1.8, never above or below it by rounding.
`published_item_set` gives the 351-row set; `item_pair_counts` counts under both conventions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.characterize.rank_stability import TOLERANCE

PUBLISHED_THRESHOLD = 1.8
PUBLISHED_PAIRS = 61_425
PUBLISHED_ABOVE = 33_359
LEFT_OUT = {
    ("tiger", "tiger"): "the identical-word calibration pair",
    ("money", "bank"): "(bank, money) again, in reverse word order",
}
"""The two WS353 rows (word1, word2) the published set leaves out, and why."""


@dataclass(frozen=True)
class ItemPairCounts:
    """Item pairs i < j and how many lie at or above / strictly above ``threshold``."""

    items: int
    pairs: int
    threshold: float
    at_or_above: int  # |m_i - m_j| >= t, with harness's tolerance
    above: int  # |m_i - m_j| > t, with harness's tolerance
    above_unrounded: int  # fl|m_i - m_j| > t as floating point computes it (no tolerance)


def item_pair_counts(means: np.ndarray | pd.Series, threshold: float) -> ItemPairCounts:
    """Count the item pairs of ``means`` by their distance to ``threshold``."""
    m = np.asarray(means, dtype=float)
    first, second = np.triu_indices(len(m), k=1)
    distance = np.abs(m[first] - m[second])
    return ItemPairCounts(
        items=len(m),
        pairs=len(distance),
        threshold=threshold,
        at_or_above=int((distance >= threshold - TOLERANCE).sum()),
        above=int((distance > threshold + TOLERANCE).sum()),
        above_unrounded=int((distance > threshold).sum()),
    )


def published_item_set(items: pd.DataFrame) -> pd.DataFrame:
    """WS353's items (``word1``, ``word2``, ...) without the two rows the published count
    leaves out (`LEFT_OUT`); raises ValueError when either is not there exactly once."""
    words = list(zip(items["word1"].astype(str), items["word2"].astype(str), strict=True))
    drop = np.zeros(len(items), dtype=bool)
    for pair in LEFT_OUT:
        at = [i for i, w in enumerate(words) if w == pair]
        if len(at) != 1:
            raise ValueError(f"expected one WS353 row {pair}, found {len(at)}")
        drop[at[0]] = True
    return items[~drop]


__all__ = [
    "LEFT_OUT",
    "PUBLISHED_ABOVE",
    "PUBLISHED_PAIRS",
    "PUBLISHED_THRESHOLD",
    "ItemPairCounts",
    "item_pair_counts",
    "published_item_set",
]
