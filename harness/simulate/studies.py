"""A whole simulated study of a task spec's content items, with the items' display columns.

For demos and tests of the later stages (characterization, reports): a rating study answers
from given latent truths (for a reproduction, the original instrument's item means); a pair
comparison answers from the latent difference of its two pairs, ``p_mean - q_mean``, which the
``pairs_of_pairs`` generator stores with each item. Control items are not simulated here.
"""

from __future__ import annotations

import pandas as pd

from harness.roles import ItemRole
from harness.simulate.crowd import Crowd, simulate_judgments
from harness.spec import LoadedSpec
from harness.spec.model import StudyType


def simulate_spec_study(
    loaded: LoadedSpec, crowd: Crowd, *, truths: pd.Series | None = None, seed: int = 0
) -> pd.DataFrame:
    """The long table ``crowd`` would give on ``loaded``'s content items (display columns kept).

    ``truths`` (item_id -> latent truth) is needed for rating and Likert studies; a pair
    comparison's truths come from its items' ``p_mean`` and ``q_mean``.
    """
    items = loaded.items[loaded.items["role"] == ItemRole.ITEM.value].set_index("item_id")
    if loaded.spec.type is StudyType.PAIR_COMPARISON:
        latent = items["p_mean"].astype(float) - items["q_mean"].astype(float)
    else:
        if truths is None:
            raise ValueError("a rating or Likert study needs latent truths per item")
        missing = items.index.difference(truths.index)
        if len(missing):
            raise ValueError(f"no latent truth for {len(missing)} item(s), e.g. {missing[0]}")
        latent = truths.reindex(items.index).astype(float)
    table = simulate_judgments(
        latent,
        loaded.scale,
        crowd,
        loaded.spec.raters_per_item,
        loaded.spec.items_per_hit,
        seed=seed,
    )
    display = items.drop(columns=["role"], errors="ignore")
    display = display[[c for c in display.columns if c not in table.columns]]
    return table.merge(display, left_on="item_id", right_index=True, how="left")
