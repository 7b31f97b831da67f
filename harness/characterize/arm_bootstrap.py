"""The bootstrap of arms' alphas: items resampled jointly, and optionally workers reweighted.

Each resample draws the items with replacement **once for all arms** (item u drawn c_u times),
so the items' shared difficulty cancels in a difference of alphas. That alone is the bootstrap
of each arm's alpha interval (`harness.characterize.arms`), and of the ``items`` interval of a
difference. With ``reweight_workers`` every worker of each arm also gets an independent weight
v ~ Exp(1) (the Bayesian bootstrap, Rubin 1981, Annals of Statistics 9(1), 130-134; a weight
rather than a redraw keeps every worker's values apart, since duplicating a worker would pair
their values with themselves), in the manner of Owen's pigeonhole bootstrap for crossed data
(Owen 2007, "The pigeonhole bootstrap", Annals of Applied Statistics 1(2), 386-411).

Neither is calibrated for a difference of alphas (docs/arms.md, "How well the verdict is
calibrated"): items alone miss the workers' share of the variance (a worker's bias is shared by
every item they rate), and items with workers counts a judgment's own noise more than once, as
Owen and McCullagh (2000, "Resampling and exchangeable arrays", Bernoulli 6(2), 285-301) show
for crossed data. The default difference is the relabeling test
(`harness.characterize.arm_relabel`); these stay as named options.

Alpha of a resample is Krippendorff's alpha of the weighted data (`harness.characterize.
arm_alpha`): with every weight 1, Krippendorff's alpha exactly.
"""

from __future__ import annotations

import numpy as np

from harness.characterize.arm_alpha import ArmValues
from harness.errors import StatsError
from harness.stats.bootstrap import unit_draw_counts

BLOCK_CELLS = 2_000_000
"""Upper bound on the float cells one block of resamples holds per arm (~16 MB)."""


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
    width = max(len(a.unit) + n_units * (int(a.x.max()) + 1 if a.nominal else 1) for a in arms)
    step = max(1, BLOCK_CELLS // width)
    out = np.empty((resamples, len(arms)))
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        counts = unit_draw_counts(rng, b, n_units)
        for j, arm in enumerate(arms):
            if reweight_workers:
                weights = rng.exponential(1.0, size=(b, arm.n_workers))
            else:
                weights = np.ones((b, arm.n_workers))
            out[start : start + b, j] = arm.alphas(counts, weights)
    return out
