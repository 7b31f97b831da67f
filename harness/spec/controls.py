"""Add generated control items (identical pairs, random pairs) to an instrument's item table.

Gold items and control groups are marked on the content items themselves (see
`harness.spec.items`); repeated items are not new items but second showings, planned per HIT.
How many identical and random pairs are made depends on the number of HITs: ``per_hit`` each.
"""

from __future__ import annotations

import math
from typing import Any

from harness.roles import ItemRole
from harness.spec.items import Row
from harness.spec.model import TaskSpec


def hit_count(n_content_items: int, items_per_hit: int) -> int:
    """HITs needed to show every content item once per assignment."""
    return math.ceil(n_content_items / items_per_hit)


def add_control_items(spec: TaskSpec, items: list[Row], display: list[str]) -> list[Row]:
    """The items with the spec's generated control items appended (seeded, deterministic)."""
    n_hits = hit_count(len(items), spec.items_per_hit)
    rows = list(items)
    if spec.controls.identical is not None:
        count = spec.controls.identical.per_hit * n_hits
        rows += _identical_pairs(items, display, count, spec.controls.identical.seed)
    if spec.controls.random_pairs is not None:
        count = spec.controls.random_pairs.per_hit * n_hits
        rows += _random_pairs(items, display, count, spec.controls.random_pairs.seed)
    return rows


def _rng(seed: int) -> Any:
    import numpy as np  # only a spec with generated controls needs numpy's generator

    return np.random.default_rng(seed)


def _identical_pairs(items: list[Row], display: list[str], count: int, seed: int) -> list[Row]:
    """(w, w) pairs whose word is the first side of distinct randomly chosen items."""
    words = list(dict.fromkeys(str(row[display[0]]) for row in items))
    picks = _rng(seed).choice(len(words), size=count, replace=count > len(words))
    return [
        {
            "item_id": f"identical-{i + 1:03d}",
            display[0]: words[pick],
            display[1]: words[pick],
            "role": ItemRole.IDENTICAL.value,
        }
        for i, pick in enumerate(picks)
    ]


def _random_pairs(items: list[Row], display: list[str], count: int, seed: int) -> list[Row]:
    """First side of one item with the second side of another, never an existing pair."""
    rng = _rng(seed)
    left = [str(row[display[0]]) for row in items]
    right = [str(row[display[1]]) for row in items]
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
    return [
        {
            "item_id": f"random-{i + 1:03d}",
            display[0]: pair[0],
            display[1]: pair[1],
            "role": ItemRole.RANDOM_PAIR.value,
        }
        for i, pair in enumerate(made)
    ]
