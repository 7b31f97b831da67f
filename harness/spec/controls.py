"""Add generated control items (identical pairs, random pairs) to an instrument's item table.

Gold items and control groups are marked on the content items themselves (see
`harness.spec.items`); repeated items are not new items but second showings, planned per HIT.
How many identical and random pairs are made depends on the number of HITs: ``per_hit`` each.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness.roles import ItemRole
from harness.spec.model import TaskSpec


def hit_count(n_content_items: int, items_per_hit: int) -> int:
    """HITs needed to show every content item once per assignment."""
    return math.ceil(n_content_items / items_per_hit)


def add_control_items(spec: TaskSpec, items: pd.DataFrame, display: list[str]) -> pd.DataFrame:
    """The item table with the spec's generated control items appended (seeded, deterministic)."""
    n_hits = hit_count(len(items), spec.items_per_hit)
    parts = [items]
    if spec.controls.identical is not None:
        count = spec.controls.identical.per_hit * n_hits
        parts.append(_identical_pairs(items, display, count, spec.controls.identical.seed))
    if spec.controls.random_pairs is not None:
        count = spec.controls.random_pairs.per_hit * n_hits
        parts.append(_random_pairs(items, display, count, spec.controls.random_pairs.seed))
    return pd.concat(parts, ignore_index=True)


def _identical_pairs(
    items: pd.DataFrame, display: list[str], count: int, seed: int
) -> pd.DataFrame:
    """(w, w) pairs whose word is the first side of distinct randomly chosen items."""
    rng = np.random.default_rng(seed)
    words = np.asarray(pd.unique(items[display[0]].astype(str)))
    chosen = rng.choice(words, size=count, replace=count > len(words))
    return pd.DataFrame(
        {
            "item_id": [f"identical-{i + 1:03d}" for i in range(count)],
            display[0]: chosen,
            display[1]: chosen,
            "role": ItemRole.IDENTICAL.value,
        }
    )


def _random_pairs(items: pd.DataFrame, display: list[str], count: int, seed: int) -> pd.DataFrame:
    """First side of one item with the second side of another, never an existing pair."""
    rng = np.random.default_rng(seed)
    left = items[display[0]].astype(str).to_numpy()
    right = items[display[1]].astype(str).to_numpy()
    existing = set(zip(left, right, strict=True)) | set(zip(right, left, strict=True))
    made: list[tuple[str, str]] = []
    attempts = 0
    while len(made) < count:
        attempts += 1
        if attempts > 1000 * count:
            raise ValueError("cannot make enough random pairs from these items")
        a, b = rng.integers(0, len(items), size=2)
        pair = (left[a], right[b])
        if a == b or pair[0] == pair[1] or pair in existing:
            continue
        existing.add(pair)
        existing.add(pair[::-1])
        made.append(pair)
    return pd.DataFrame(
        {
            "item_id": [f"random-{i + 1:03d}" for i in range(count)],
            display[0]: [p[0] for p in made],
            display[1]: [p[1] for p in made],
            "role": ItemRole.RANDOM_PAIR.value,
        }
    )
