"""The two-way bootstrap of arms' alphas: items resampled jointly, workers reweighted per arm.

Resampling items alone treats every item's disagreement as independent, but a worker's bias
is shared by every item they rate, and which workers landed in an arm is itself a draw: on
simulated arms that do not differ, an items-only interval calls them different about twice as
often as its level says (see docs/arms.md). So each resample here does both, in the manner of
Owen's pigeonhole bootstrap for crossed data (Owen 2007, "The pigeonhole bootstrap", Annals of
Applied Statistics 1(2), 386-411):

- the items are drawn with replacement, **once for all arms** (item u drawn c_u times), so the
  items' shared difficulty cancels in a difference of alphas;
- every worker of each arm gets an independent weight v ~ Exp(1) (the Bayesian bootstrap,
  Rubin 1981, Annals of Statistics 9(1), 130-134), which keeps every worker's values apart
  (duplicating a worker would pair their values with themselves).

Alpha of a resample is Krippendorff's alpha of the expanded data (item u present c_u times, each
value carrying its worker's weight), with pairs of two different values weighted by the product
of their weights. For one unit with weights v_i and values x_i (V = sum v, S1 = sum v x,
S2 = sum v x^2, Q = sum v^2), the interval sums are

    observed:  D_o = sum_u c_u V_u * 2 (V_u S2_u - S1_u^2) / (V_u^2 - Q_u) / sum_u c_u V_u
    expected:  D_e = 2 (W T2 - T1^2) / (W^2 - sum_u c_u Q_u),
               W = sum_u c_u V_u, T1 = sum_u c_u S1_u, T2 = sum_u c_u S2_u

and alpha = 1 - D_o / D_e; with every weight 1 these are Krippendorff's sums exactly
(`harness.stats.alpha`). Ordinal alpha is interval alpha of the mid-ranks, here the ranks of
each arm's pooled values in the data (fixed across resamples, as KALPHA fixes its metric);
nominal replaces V S2 - S1^2 by (V^2 - sum_c V_c^2) / 2 with V_c the weight of label c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from harness.errors import StatsError
from harness.stats.alpha import Level

BLOCK_CELLS = 2_000_000
"""Upper bound on the float cells one block of resamples holds per arm (~16 MB)."""


@dataclass(frozen=True)
class ArmValues:
    """One arm's pairable values on the shared items: item codes 0..U-1, worker codes, and the
    values as the level compares them (interval: centred numbers; ordinal: centred mid-ranks;
    nominal: label codes)."""

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
        if level == "ratio":
            raise StatsError(
                "comparing arms at the ratio level is not supported; use interval or ordinal"
            )
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
            np.asarray(unit, dtype=np.int64), codes.astype(np.int64), x, n_units,
            int(codes.max()) + 1, level == "nominal",
        )  # fmt: skip

    def alphas(self, item_counts: np.ndarray, worker_weights: np.ndarray) -> np.ndarray:
        """Alpha of each resample (rows of ``item_counts`` (b x U) and ``worker_weights``
        (b x workers)); NaN where a resample has no variation."""
        v = worker_weights[:, self.worker]  # b x n: each value's weight
        to_unit = sparse.csr_matrix(
            (np.ones(len(self.unit)), (np.arange(len(self.unit)), self.unit)),
            shape=(len(self.unit), self.n_units),
        )
        big_v = np.asarray((to_unit.T @ v.T).T)  # b x U
        q = np.asarray((to_unit.T @ (v * v).T).T)
        c = item_counts
        if self.nominal:
            labels = int(self.x.max()) + 1
            onehot = sparse.csr_matrix(
                (np.ones(len(self.unit)), (np.arange(len(self.unit)), self.x.astype(np.int64))),
                shape=(len(self.unit), labels),
            )
            # per unit: sum_c V_uc^2, and pooled sum_c (sum_u c_u V_uc)^2
            unit_label = [
                np.asarray((to_unit.T @ sparse.diags(v[r]) @ onehot).todense())
                for r in range(v.shape[0])
            ]
            within = np.array([(ul * ul).sum(axis=1) for ul in unit_label])  # b x U
            pooled_labels = np.array([c[r] @ ul for r, ul in enumerate(unit_label)])
            unit_num = big_v * big_v - within  # sum_{i!=j} v_i v_j [x_i != x_j]
            w = (c * big_v).sum(axis=1)
            pooled_num = w * w - (pooled_labels * pooled_labels).sum(axis=1)
        else:
            s1 = np.asarray((to_unit.T @ (v * self.x).T).T)
            s2 = np.asarray((to_unit.T @ (v * self.x * self.x).T).T)
            unit_num = 2.0 * (big_v * s2 - s1 * s1)
            w = (c * big_v).sum(axis=1)
            t1 = (c * s1).sum(axis=1)
            t2 = (c * s2).sum(axis=1)
            pooled_num = 2.0 * (w * t2 - t1 * t1)
        pair_mass = big_v * big_v - q
        with np.errstate(divide="ignore", invalid="ignore"):
            unit_do = np.where(pair_mass > 0, unit_num / pair_mass, 0.0)
            mass = c * big_v * (pair_mass > 0)
            d_o = (mass * unit_do).sum(axis=1) / mass.sum(axis=1)
            w_all = (c * big_v).sum(axis=1)
            d_e = pooled_num / (w_all * w_all - (c * q).sum(axis=1))
            alpha = 1.0 - d_o / d_e
        alpha[~(d_e > 1e-12)] = np.nan
        return alpha


def two_way_bootstrap(
    arms: list[ArmValues],
    resamples: int,
    rng: np.random.Generator,
    *,
    reweight_workers: bool = True,
) -> np.ndarray:
    """resamples x arms alphas (see the module docstring): per resample, one draw of the
    shared items and, per arm, one Exp(1) weight per worker (``reweight_workers=False``:
    items only, every weight 1; narrower, and too narrow when workers have biases)."""
    n_units = arms[0].n_units
    if any(a.n_units != n_units for a in arms):
        raise StatsError("every arm must have the same items to resample them jointly")
    width = max(len(a.unit) for a in arms) + n_units
    step = max(1, BLOCK_CELLS // width)
    out = np.empty((resamples, len(arms)))
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        draws = rng.integers(0, n_units, size=(b, n_units))
        flat = (draws + n_units * np.arange(b)[:, None]).ravel()
        counts = np.bincount(flat, minlength=b * n_units).reshape(b, n_units).astype(float)
        for j, arm in enumerate(arms):
            if reweight_workers:
                weights = rng.exponential(1.0, size=(b, arm.n_workers))
            else:
                weights = np.ones((b, arm.n_workers))
            out[start : start + b, j] = arm.alphas(counts, weights)
    return out
