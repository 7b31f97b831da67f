"""Which showing of an item is a repeat: the second (and any later) showing of an item to the
same worker within one assignment (controls.repeated, docs/methods.md section 3), and a content
item's showing to a worker who judged it in another assignment of the study already.

A repeated item is planned as one item shown twice (`harness.render.plan.place_repeats`): the
first showing is the item's, the later one is the control ``repeat``, which content figures
(alpha, raters per item, item sd, cost per judgment) leave out and the intra-rater checks pair
with the first. The store writes that role (`showing_roles`); tables written before it did,
where both showings carry the item's role, are read the same way (`mark_repeats`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Protocol

from harness.answer import Answer
from harness.roles import ItemRole

if TYPE_CHECKING:
    import pandas as pd


class HasRole(Protocol):
    """An item as the store or a spec holds it: what matters here is its role."""

    @property
    def role(self) -> ItemRole: ...


REPEATABLE = frozenset({ItemRole.ITEM, ItemRole.GOLD, ItemRole.CONTROL_GROUP})
"""Roles of the items a worker may be shown twice (content items, gold included): the first
showing keeps the item's role, a later one is ``repeat``."""


def showing_roles(
    answers: Sequence[Answer],
    items: Mapping[str, HasRole],
    before: AbstractSet[str] = frozenset(),
) -> list[ItemRole]:
    """The role of each answer's showing, in the answers' order: its item's role (``items``:
    item key -> item), except ``repeat`` for an item's later showing by position (equal
    positions: the later answer), and for every showing of a content item in ``before``: the
    items the worker has judged in another assignment of the study already (an adaptive study
    on MTurk composes HITs from the items still short, and a worker may take a later one
    holding an item they judged: that second judgment is not independent of the first)."""
    order = sorted(range(len(answers)), key=lambda i: answers[i].position)
    out: list[ItemRole] = [ItemRole.ITEM] * len(answers)
    seen: set[str] = set()
    for i in order:
        key = answers[i].item_key
        role = items[key].role
        again = key in seen or (key in before and role in REPEATABLE)
        out[i] = ItemRole.REPEAT if again else role
        seen.add(key)
    return out


def mark_repeats(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (a long judgment table with a ``role`` column) with ``role`` ``repeat`` on
    every later showing of an item within one assignment (by ``position``, then row order).

    The assignment is ``assignment_id`` within ``worker_id`` when the table has it, else the
    worker. A table without ``role`` says nothing about controls and is returned as it is;
    one whose later showings are marked already comes back equal.
    """
    import numpy as np
    import pandas as pd

    if "role" not in table.columns or table.empty:
        return table
    keys = [
        "worker_id",
        *(["assignment_id"] if "assignment_id" in table.columns else []),
        "item_id",
    ]
    twice = table.duplicated(keys, keep=False).to_numpy()
    if not twice.any():
        return table
    at = np.flatnonzero(twice)  # row positions: the index need not be unique
    shown = table.iloc[at]
    if "position" in shown.columns:
        position = pd.to_numeric(shown["position"], errors="coerce").to_numpy()
        order = pd.Series(position).sort_values(kind="stable").index.to_numpy()
        at, shown = at[order], shown.iloc[order]
    later = at[shown.duplicated(keys, keep="first").to_numpy()]
    out = table.copy()
    role = out["role"].astype(object).to_numpy(copy=True)
    role[later] = ItemRole.REPEAT.value
    out["role"] = role
    return out
