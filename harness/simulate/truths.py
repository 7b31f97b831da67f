"""The latent truth a simulated worker answers from, per item of an instrument."""

from __future__ import annotations

import pandas as pd

from harness.simulate.crowd import control_truths
from harness.spec.scale import Scale


def latent_truths(items: pd.DataFrame, scale: Scale, seed: int) -> dict[str, float]:
    """Per item id: the item's ``mean`` column where it has one (WS353), else the scale's
    midpoint; control items from `control_truths` (an identical pair at the maximum, ...)."""
    means = items["mean"] if "mean" in items.columns else None
    truths = {
        str(key): float(means.iloc[i]) if means is not None else scale.midpoint
        for i, key in enumerate(items["item_id"])
    }
    truths.update({str(k): float(v) for k, v in control_truths(items, scale, seed).items()})
    return truths
