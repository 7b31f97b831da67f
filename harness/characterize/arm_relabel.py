"""The relabeling test of a difference of two arms' alphas, and the interval it gives.

Workers are randomized between arms (docs/arms.md, "Assignment is by permuted blocks"). If the
arm made no difference to anyone's judgments, the split of the workers that the randomization
happened to draw would be one of many equally likely splits, and the difference of alphas it
gave one draw from the differences those splits give. The test redraws the split: a relabeling
takes the two arms' workers, each with all their values, in a random order into the arm until
the arm holds its observed number of values (a worker who would overshoot it is passed over),
puts the rest in the base, and computes the difference of alphas of that split with the same
statistic (Krippendorff's alpha of each side at the level, `harness.characterize.arm_alpha`;
ordinal mid-ranks are recomputed for each side). This is Fisher's randomization test (Ernst
2004, "Permutation methods: a basis for exact inference", Statistical Science 19(4), 676-685):
every source of chance a worker brings (their bias, their noise, which items they were given)
moves with them, so nothing is counted twice and nothing is left out, which is what the
bootstraps of crossed data get wrong (`harness.characterize.arm_bootstrap`).

- **p**: two-sided, equal tails: twice the smaller share of relabelings whose difference is at
  least (at most) the observed one, counting the observed split among them, capped at 1.
- **interval**: the differences delta the test would not reject if the arms differed by delta
  and a relabeled difference spread around delta as it spreads around 0 when they do not (the
  inversion of a randomization test under a constant shift, as in Ernst 2004): with L and H the
  (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of the relabeled differences,
  [d - H, d - L]. It excludes 0 exactly when the test rejects at 1 - confidence (up to the
  quantiles' interpolation).

It is exact when a worker would have rated the same items with the same values in either arm.
When the arms' HITs differ (another items per HIT, or each arm's own HITs), a worker's items
depend on their arm, and a relabeled side holds parts of HITs; keeping each arm's number of
values keeps the test close to its level (docs/arms.md gives the false-positive rates measured
on simulated studies). The split is drawn with the arms' sizes fixed, not within the arrival
blocks of the actual assignment, which the comparison does not see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from harness.characterize.arm_alpha import check_level, midranks, unit_matrix, weighted_alphas
from harness.errors import StatsError
from harness.stats.alpha import Level

BLOCK_CELLS = 2_000_000
"""Upper bound on the float cells one block of relabelings holds (~16 MB per array)."""


@dataclass(frozen=True)
class Relabeled:
    """The observed difference of alphas (arm minus base), the quantiles of the relabeled
    differences, and the test and interval they give (module docstring)."""

    difference: float
    low: float  # the (1 - confidence) / 2 quantile of the relabeled differences
    high: float  # the (1 + confidence) / 2 quantile
    p: float
    confidence: float
    relabeled: np.ndarray  # the difference of each relabeling (NaN: a side had no pairs)

    @property
    def ci_low(self) -> float:
        return self.difference - self.high

    @property
    def ci_high(self) -> float:
        return self.difference - self.low

    @property
    def se(self) -> float:
        """The standard error the interval implies: its width over 2 z_{(1+confidence)/2}."""
        z: float = stats.norm.ppf((1 + self.confidence) / 2)  # scipy has no type stubs
        return (self.high - self.low) / (2 * z)

    @property
    def too_few_splits(self) -> bool:
        """Whether the workers allow so few splits that no difference could reach the level:
        the relabelings repeat (fewer distinct differences than relabelings) and give fewer
        than 2 / (1 - confidence) distinct differences. Three workers per arm allow 20 splits,
        and the smallest p-value of 20 equally likely splits is 2 / 20."""
        finite = self.relabeled[np.isfinite(self.relabeled)]
        distinct = len(np.unique(np.round(finite, 12)))
        return distinct < min(len(finite), 2 / (1 - self.confidence))


def relabeling_test(
    unit: np.ndarray,
    worker: np.ndarray,
    values: np.ndarray,
    in_arm: np.ndarray,
    n_units: int,
    level: Level,
    relabelings: int,
    confidence: float,
    rng: np.random.Generator,
) -> Relabeled:
    """Test alpha(arm) = alpha(base) by relabeling workers (module docstring). One row per
    value of the two arms: its item code 0..n_units-1, its worker, the value, and whether it
    is in the arm (True) or the base (False); every worker must be on one side."""
    check_level(level)
    if relabelings < 1:
        raise StatsError("the relabeling test needs at least 1 relabeling")
    unit = np.asarray(unit, dtype=np.int64)
    in_arm = np.asarray(in_arm, dtype=bool)
    codes, names = pd.factorize(pd.Series(worker))
    arm_share = np.bincount(codes, weights=in_arm) / np.bincount(codes)
    torn = names[(arm_share > 0) & (arm_share < 1)]
    if len(torn):
        raise StatsError(f"worker {torn[0]} has values in both arms; a worker is in one arm")
    counts = np.bincount(codes)
    target = int(counts[arm_share == 1].sum())
    sides = Sides(unit, np.asarray(values), n_units, level)
    observed = sides.differences(in_arm[None, :].astype(float))[0]
    width = len(unit) * 3 + n_units * sides.labels
    step = max(1, BLOCK_CELLS // width)
    relabeled = np.empty(relabelings)
    for start in range(0, relabelings, step):
        b = min(step, relabelings - start)
        taken = draw_splits(counts, target, b, rng)
        relabeled[start : start + b] = sides.differences(taken[:, codes])
    finite = relabeled[np.isfinite(relabeled)]
    if not math.isfinite(observed) or len(finite) == 0:
        return Relabeled(observed, math.nan, math.nan, math.nan, confidence, relabeled)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    above = (1 + np.sum(finite >= observed)) / (1 + len(finite))
    below = (1 + np.sum(finite <= observed)) / (1 + len(finite))
    p = min(1.0, 2 * min(above, below))
    return Relabeled(float(observed), float(low), float(high), float(p), confidence, relabeled)


def draw_splits(counts: np.ndarray, target: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """b x workers, 1 for the workers a relabeling puts in the arm: workers in a random order,
    each taken while the arm's values stay within ``target``."""
    order = np.argsort(rng.random((b, len(counts))), axis=1)
    taken = np.zeros((b, len(counts)))
    total = np.zeros(b)
    rows = np.arange(b)
    for k in range(len(counts)):
        w = order[:, k]
        fits = total + counts[w] <= target
        taken[rows, w] = fits
        total += fits * counts[w]
    return taken


class Sides:
    """Alpha of the arm side and the base side of many splits of the same pooled values."""

    def __init__(self, unit: np.ndarray, values: np.ndarray, n_units: int, level: Level):
        self.unit = unit
        self.n_units = n_units
        self.level = level
        self.nominal = level == "nominal"
        if level == "interval":
            v = values.astype(np.float64)
            self.x = v - v.mean()
            self.labels = 1
        else:  # label codes (nominal), or rank codes of the sorted values (ordinal)
            self.x = pd.factorize(pd.Series(values), sort=True)[0].astype(np.int64)
            self.labels = int(self.x.max()) + 1
        self.to_unit = unit_matrix(unit, n_units)

    def differences(self, in_arm: np.ndarray) -> np.ndarray:
        """alpha(arm side) - alpha(base side) for each row of 0/1 weights (b x values)."""
        difference: np.ndarray = self._alphas(in_arm) - self._alphas(1.0 - in_arm)
        return difference

    def _alphas(self, v: np.ndarray) -> np.ndarray:
        ones = np.ones((len(v), self.n_units))
        x = self.x
        if self.level == "ordinal":
            big_v = np.asarray((self.to_unit @ v.T).T)
            pairable = (big_v * big_v - np.asarray((self.to_unit @ (v * v).T).T)) > 0
            x = midranks(self.x, self.labels, v * pairable[:, self.unit])
        return weighted_alphas(self.unit, x, self.n_units, ones, v, nominal=self.nominal)
