"""A whole simulated study of a task spec's content items, with the items' display columns.

For demos and tests of the later stages (characterization, reports). The study type gives the
latent truth per item (`StudyTypeDefinition.latent_truths`): a rating or Likert study answers
from given truths (for a reproduction, the original instrument's item means); a pair
comparison answers from the latent difference of its two pairs, ``p_mean - q_mean``, which the
``pairs_of_pairs`` generator stores with each item. Control items are not simulated here.
"""

from __future__ import annotations

import pandas as pd

from harness.roles import ItemRole
from harness.simulate.crowd import Crowd, simulate_judgments
from harness.spec import LoadedSpec
from harness.spec.study_types import definition


def simulate_spec_study(
    loaded: LoadedSpec, crowd: Crowd, *, truths: pd.Series | None = None, seed: int = 0
) -> pd.DataFrame:
    """The long table ``crowd`` would give on ``loaded``'s content items (display columns kept).

    ``truths`` (item_id -> latent truth) is needed for rating and Likert studies; a pair
    comparison's truths come from its items' ``p_mean`` and ``q_mean``.
    """
    items = loaded.items[loaded.items["role"] == ItemRole.ITEM.value].set_index("item_id")
    latent = definition(loaded.spec.type).latent_truths(items, truths)
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
