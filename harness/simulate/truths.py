"""The latent truth a simulated worker answers from, per item of an instrument."""

from __future__ import annotations

import pandas as pd

from harness.roles import ItemRole
from harness.simulate.crowd import control_truths
from harness.spec.scale import Scale
from harness.spec.study_types import definition

PAIR_COLUMNS = ("p_mean", "q_mean")


def latent_truths(items: pd.DataFrame, scale: Scale, seed: int) -> dict[str, float]:
    """Per item id: what a simulated worker answers from.

    A pair comparison's items carry their two pairs' means (``p_mean``, ``q_mean``, stored by
    the ``pairs_of_pairs`` generator): the truth is their difference, as the study type
    defines it. Otherwise the item's ``mean`` column where it has one (WS353), else the scale's
    midpoint; control items from `control_truths` (an identical pair at the maximum, ...).
    """
    if all(c in items.columns for c in PAIR_COLUMNS):
        content = (
            items[items["role"].astype(str) == ItemRole.ITEM.value]
            if "role" in items.columns
            else items
        )
        return {
            str(k): float(v)
            for k, v in definition(scale.kind)
            .latent_truths(content.set_index("item_id"), None)
            .items()
        }
    means = items["mean"] if "mean" in items.columns else None
    truths = {
        str(key): float(means.iloc[i]) if means is not None else scale.midpoint
        for i, key in enumerate(items["item_id"])
    }
    truths.update({str(k): float(v) for k, v in control_truths(items, scale, seed).items()})
    return truths
