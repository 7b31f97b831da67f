"""Counting and summing over item pairs by distance, in O(n log^2 n) instead of O(n^2).

Rank stability and the systems' distance correlation ask, for every item, which other items
lie within (or beyond) some distance of its mean. Over sorted means those items form one
contiguous run (or the two runs outside it), so counts come from positions and sums from
prefix sums. Two questions need more than that: pairs counted once in a given *orientation*
(i < j in the items' own order) and pairs where *both* items lie within each other's reach.
Both reduce to "how many of the first b points have a rank below h", which `PrefixRanks`
answers for many queries at once with a merge-sort tree (one sorted array per power of two).

Distances are compared exactly as the pairwise definitions compare them: ``|m_i - m_j|`` as
the floating-point difference, against a threshold computed once per item. The bounds found by
`numpy.searchsorted` on ``m +- reach`` (whose sum is rounded) are corrected by a few steps so
that every count equals the quadratic definition's, to the last pair.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class PrefixRanks:
    """Vectorized ``below(b, h)`` = #{p < b : rank[p] < h} for a permutation ``rank`` of 0..n-1.

    Level L of the tree holds, for each aligned block of 2^L positions, the block's ranks in
    sorted order (as ``block * n + rank``, one sorted array per level). A prefix [0, b) is the
    union of at most one block per level (the set bits of b), so a query is one `searchsorted`
    per level: O(log^2 n) per query, O(n log n) memory.
    """

    def __init__(self, rank: np.ndarray) -> None:
        self.n = n = len(rank)
        rank = np.asarray(rank, dtype=np.int64)
        self.levels: list[np.ndarray] = []
        size = 1
        while size <= n:
            blocks = np.arange(n, dtype=np.int64) // size
            self.levels.append(np.sort(blocks * n + rank))
            size *= 2

    def below(self, b: np.ndarray, h: np.ndarray) -> np.ndarray:
        """For each query: how many of the positions p < b[q] have rank[p] < h[q]."""
        b = np.asarray(b, dtype=np.int64)
        h = np.asarray(h, dtype=np.int64)
        total = np.zeros(len(b), dtype=np.int64)
        for level, keys in enumerate(self.levels):
            use = np.flatnonzero((b >> level) & 1)
            if not len(use):
                continue
            block = (b[use] >> level) - 1  # the block of 2^level just before b's higher bits
            found = np.searchsorted(keys, block * self.n + h[use], side="left")
            total[use] += found - block * (1 << level)
        return total


Gap = float | np.ndarray


def first_at_least_above(ordered: np.ndarray, centre: np.ndarray, gap: Gap) -> np.ndarray:
    """Per centre c: the first position p of ``ordered`` with fl(ordered[p] - c) >= gap."""
    guess = np.searchsorted(ordered, centre + gap, side="left")
    return _settle(ordered, guess, lambda v, c, g: v - c >= g, centre, gap)


def first_more_than_above(ordered: np.ndarray, centre: np.ndarray, gap: Gap) -> np.ndarray:
    """Per centre c: the first position p of ``ordered`` with fl(ordered[p] - c) > gap."""
    guess = np.searchsorted(ordered, centre + gap, side="right")
    return _settle(ordered, guess, lambda v, c, g: v - c > g, centre, gap)


def first_less_than_below(ordered: np.ndarray, centre: np.ndarray, gap: Gap) -> np.ndarray:
    """Per centre c: the first position p of ``ordered`` with fl(c - ordered[p]) < gap.

    The positions before it hold the values at least ``gap`` below c.
    """
    guess = np.searchsorted(ordered, centre - gap, side="right")
    return _settle(ordered, guess, lambda v, c, g: c - v < g, centre, gap)


def first_at_most_below(ordered: np.ndarray, centre: np.ndarray, gap: Gap) -> np.ndarray:
    """Per centre c: the first position p of ``ordered`` with fl(c - ordered[p]) <= gap."""
    guess = np.searchsorted(ordered, centre - gap, side="left")
    return _settle(ordered, guess, lambda v, c, g: c - v <= g, centre, gap)


Holds = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _settle(
    ordered: np.ndarray, guess: np.ndarray, holds: Holds, centre: np.ndarray, gap: Gap
) -> np.ndarray:
    """Move each guess to the first position where ``holds`` (false before, true after) is true.

    ``holds(value, centre, gap)`` depends on the value only and is monotone in it, so the first
    position lies a few distinct values from a guess made from the rounded ``centre +- gap``;
    each step moves past a whole run of equal values.
    """
    n = len(ordered)
    p = np.asarray(guess, dtype=np.int64).copy()
    centre = np.broadcast_to(np.asarray(centre, dtype=float), p.shape)
    gaps = np.broadcast_to(np.asarray(gap, dtype=float), p.shape)
    while True:  # step down while the value before still holds
        at = np.flatnonzero(p > 0)
        at = at[holds(ordered[p[at] - 1], centre[at], gaps[at])]
        if not len(at):
            break
        p[at] = np.searchsorted(ordered, ordered[p[at] - 1], side="left")
    while True:  # step up while the value here does not hold
        at = np.flatnonzero(p < n)
        at = at[~holds(ordered[p[at]], centre[at], gaps[at])]
        if not len(at):
            break
        p[at] = np.searchsorted(ordered, ordered[p[at]], side="right")
    return p


class SignedPairSums:
    """Sums over the item pairs i < j whose distance |m_i - m_j| reaches a threshold.

    For the pairs with fl|m_i - m_j| >= ``gap``, with x = m_i - m_j and, per score column,
    y = s_i - s_j (i before j in the items' own order, as the pairwise definition orients
    them): the count and the sums of x, y, x^2, y^2 and xy. The symmetric sums come from
    prefix sums over the sorted means; the sums of x and y need each item's partners after
    it minus those before it, counted with `PrefixRanks`.
    """

    def __init__(self, means: np.ndarray) -> None:
        self.means = m = np.asarray(means, dtype=float)
        self.n = n = len(m)
        self.order = np.argsort(m, kind="stable")
        self.ordered = m[self.order]
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[self.order] = np.arange(n)
        self.tree = PrefixRanks(self.rank)
        # Shifted by a value of the data: a side whose values are all equal becomes exactly 0.
        self.x = m - self.ordered[n // 2] if n else m

    def sums(self, scores: np.ndarray, gap: float) -> np.ndarray:
        """Per score column: [count, sum x, sum y, sum xx, sum yy, sum xy] (NaN when a pair
        reaching ``gap`` involves an item without a score)."""
        n, m, x = self.n, self.means, self.x
        index = np.arange(n, dtype=np.int64)
        if gap > 0:
            lo = first_less_than_below(self.ordered, m, gap)  # sorted positions < lo: below
            hi = first_at_least_above(self.ordered, m, gap)  # positions >= hi: above
            valid = lo + (n - hi)
            before_lo = self.tree.below(index + 1, lo)  # items k' <= k ranked below lo
            before_hi = self.tree.below(index + 1, hi)
            after = (lo - before_lo) + (n - hi) - (index + 1 - before_hi)

            def partners(values: np.ndarray) -> np.ndarray:
                prefix = np.concatenate(([0.0], np.cumsum(values[self.order])))
                counted: np.ndarray = prefix[lo] + (prefix[n] - prefix[hi])
                return counted

        else:  # every pair reaches a threshold <= 0
            valid = np.full(n, n - 1, dtype=np.int64)
            after = n - 1 - index

            def partners(values: np.ndarray) -> np.ndarray:
                others: np.ndarray = values.sum() - values
                return others

        orient = (2 * after - valid).astype(float)  # partners after k minus partners before
        weight = valid.astype(float)
        count = float(valid.sum() // 2)
        px = partners(x)
        sxx = float(_dot(x * x, weight) - _dot(x, px))
        out = np.empty((scores.shape[1], 6))
        for s in range(scores.shape[1]):
            raw = np.asarray(scores[:, s], dtype=float)
            missing = np.isnan(raw)
            y = np.where(missing, 0.0, raw - (raw[~missing][0] if (~missing).any() else 0.0))
            py = partners(y)
            row = [
                count,
                float(_dot(x, orient)),
                float(_dot(y, orient)),
                sxx,
                float(_dot(y * y, weight) - _dot(y, py)),
                float(_dot(x * y, weight) - _dot(x, py)),
            ]
            if (valid[missing] > 0).any():
                row[1:6] = [float("nan")] * 5
            out[s] = row
        return out


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum(a * b), pairwise-summed: numpy's BLAS dot threads vectors above ~10k values, which
    on a busy machine costs far more than it saves."""
    return float((a * b).sum())
