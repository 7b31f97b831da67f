"""Krippendorff's alpha of weighted values, many weightings at once: the core that both the
bootstrap (`harness.characterize.arm_bootstrap`) and the relabeling test
(`harness.characterize.arm_relabel`) of arms' alphas evaluate.

A weighting gives every item u a weight c_u (how often a bootstrap drew it) and every value i
a weight v_i (its worker's bootstrap weight, or 0/1 for whether a relabeled arm holds it).
Alpha of a weighting is Krippendorff's alpha of the expanded data (item u present c_u times,
each value carrying its weight), with pairs of two different values weighted by the product
of their weights. For one unit with weights v_i and values x_i (V = sum v, S1 = sum v x,
S2 = sum v x^2, Q = sum v^2), the interval sums are

    observed:  D_o = sum_u c_u V_u * 2 (V_u S2_u - S1_u^2) / (V_u^2 - Q_u) / sum_u c_u V_u
    expected:  D_e = 2 (W T2 - T1^2) / (W^2 - sum_u c_u Q_u),
               W = sum_u c_u V_u, T1 = sum_u c_u S1_u, T2 = sum_u c_u S2_u

over the units whose pair weight V_u^2 - Q_u is positive (two or more weighted values: the
others are not pairable and drop out of both sums, as in Krippendorff's alpha), and
alpha = 1 - D_o / D_e. With every weight 1 these are Krippendorff's sums exactly
(`harness.stats.alpha`). Ordinal alpha is interval alpha of the mid-ranks of the pooled
pairable values (`midranks`); nominal replaces V S2 - S1^2 by (V^2 - sum_c V_c^2) / 2 with
V_c the weight of label c in the unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from harness.errors import StatsError
from harness.stats.alpha import Level


def check_level(level: Level) -> None:
    """Arms are compared at the nominal, ordinal or interval level (ratio: not supported)."""
    if level == "ratio":
        raise StatsError(
            "comparing arms at the ratio level is not supported; use interval or ordinal"
        )


def unit_matrix(unit: np.ndarray, n_units: int) -> sparse.csr_matrix:
    """The units x values 0/1 matrix that sums values' weights into their units."""
    n = len(unit)
    return sparse.csr_matrix((np.ones(n), (unit, np.arange(n))), shape=(n_units, n))


def weighted_alphas(
    unit: np.ndarray,
    x: np.ndarray,
    n_units: int,
    item_weights: np.ndarray,
    value_weights: np.ndarray,
    *,
    nominal: bool = False,
) -> np.ndarray:
    """Alpha of each weighting (module docstring): ``item_weights`` is b x units,
    ``value_weights`` b x values; ``x`` holds the values as compared (interval: numbers,
    shape values or b x values; nominal: label codes 0..C-1). NaN where a weighting leaves no
    pairable values or no variation."""
    v = value_weights
    to_unit = unit_matrix(unit, n_units)
    big_v = np.asarray((to_unit @ v.T).T)  # b x U
    q = np.asarray((to_unit @ (v * v).T).T)
    pair_mass = big_v * big_v - q
    c = item_weights * (pair_mass > 0)  # units without a pair drop out of both sums
    w = (c * big_v).sum(axis=1)
    if nominal:
        labels = int(x.max()) + 1
        cells = sparse.csr_matrix(
            (np.ones(len(unit)), (unit * labels + x.astype(np.int64), np.arange(len(unit)))),
            shape=(n_units * labels, len(unit)),
        )
        unit_label = np.asarray((cells @ v.T).T).reshape(len(v), n_units, labels)
        unit_num = big_v * big_v - (unit_label * unit_label).sum(axis=2)
        pooled = (c[:, :, None] * unit_label).sum(axis=1)  # b x labels
        pooled_num = w * w - (pooled * pooled).sum(axis=1)
    else:
        s1 = np.asarray((to_unit @ (v * x).T).T)
        s2 = np.asarray((to_unit @ (v * x * x).T).T)
        unit_num = 2.0 * (big_v * s2 - s1 * s1)
        t1 = (c * s1).sum(axis=1)
        t2 = (c * s2).sum(axis=1)
        pooled_num = 2.0 * (w * t2 - t1 * t1)
    with np.errstate(divide="ignore", invalid="ignore"):
        unit_do = np.where(pair_mass > 0, unit_num / pair_mass, 0.0)
        d_o = (c * big_v * unit_do).sum(axis=1) / w
        d_e = pooled_num / (w * w - (c * q).sum(axis=1))
        alpha: np.ndarray = 1.0 - d_o / d_e
    alpha[~(d_e > 1e-12) | ~(w > 0)] = np.nan
    return alpha


def midranks(codes: np.ndarray, n_codes: int, weights: np.ndarray) -> np.ndarray:
    """b x values: each value's mid-rank among the values weighted 1 in its row (``codes``:
    each value's rank code 0..n_codes-1 in sorted order), centred; ordinal alpha of a row is
    interval alpha of these (`harness.stats.alpha`). Only the values' weights matter, not
    which items they are on, so the caller weights unpairable values 0."""
    onehot = sparse.csr_matrix(
        (np.ones(len(codes)), (np.arange(len(codes)), codes)), shape=(len(codes), n_codes)
    )
    counts = np.asarray(onehot.T @ weights.T).T  # b x codes
    below = np.cumsum(counts, axis=1) - counts
    rank = below + (counts + 1) / 2  # the mid-rank of each code
    total = counts.sum(axis=1, keepdims=True)
    centred: np.ndarray = rank - (total + 1) / 2
    return centred[:, codes]


@dataclass(frozen=True)
class ArmValues:
    """One arm's pairable values on the shared items: item codes 0..U-1, worker codes, and the
    values as the level compares them (interval: centred numbers; ordinal: centred mid-ranks
    of the arm's values; nominal: label codes)."""

    unit: np.ndarray
    worker: np.ndarray
    x: np.ndarray
    n_units: int
    n_workers: int
    nominal: bool

    @classmethod
    def build(
        cls, unit: np.ndarray, worker: np.ndarray, values: np.ndarray, n_units: int, level: Level
    ) -> ArmValues:
        check_level(level)
        codes, _ = pd.factorize(pd.Series(worker))
        if level == "nominal":
            x = pd.factorize(pd.Series(values), sort=True)[0].astype(np.float64)
        elif level == "ordinal":
            ranks = pd.Series(values).rank(method="average").to_numpy()  # mid-ranks
            x = ranks - ranks.mean()
        else:
            v = np.asarray(values, dtype=np.float64)
            x = v - v.mean()
        return cls(
            np.asarray(unit, dtype=np.int64),
            codes.astype(np.int64),
            x,
            n_units,
            int(codes.max()) + 1,
            level == "nominal",
        )

    def alphas(self, item_counts: np.ndarray, worker_weights: np.ndarray) -> np.ndarray:
        """Alpha of each resample (rows of ``item_counts`` (b x U) and ``worker_weights``
        (b x workers)); NaN where a resample has no variation."""
        return weighted_alphas(
            self.unit,
            self.x,
            self.n_units,
            item_counts,
            worker_weights[:, self.worker],
            nominal=self.nominal,
        )
