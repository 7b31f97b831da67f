"""Resolve a spec's item source (CSV, dataset adapter or generator) into an item table.

The item table has ``item_id``, ``role`` (see `harness.roles.ItemRole`), the display columns,
and, when the spec uses them, ``gold`` (designated answer) and ``group`` (control group).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.datasets import load_ws353
from harness.datasets.ws353 import PAPER_RATERS
from harness.datasets.ws353 import SET2_RATERS as ALL_RATERS
from harness.errors import DatasetError
from harness.roles import ItemRole
from harness.spec.bounded_yaml import PathKey
from harness.spec.generators import pairs_of_pairs
from harness.spec.model import ItemsSpec, TaskSpec
from harness.spec.yaml_source import YamlSource


class ItemProblem(Exception):
    """An item source problem at a key path of the spec (collected into a SpecError)."""

    def __init__(self, key: PathKey, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


@dataclass(frozen=True)
class ItemTable:
    frame: pd.DataFrame
    display: list[str]


def resolve_items(spec: TaskSpec, source: YamlSource) -> ItemTable:
    """The instrument's content items (controls are added later by `harness.spec.controls`)."""
    table = _resolve(spec.items, source, ("items",))
    frame = table.frame.copy()
    frame["role"] = ItemRole.ITEM.value
    controls = spec.controls
    if controls.gold is not None:
        frame = _mark_column(
            frame, controls.gold.column, "gold", ItemRole.GOLD, ("controls", "gold")
        )
    if controls.control_groups is not None:
        frame = _mark_column(
            frame,
            controls.control_groups.column,
            "group",
            ItemRole.CONTROL_GROUP,
            ("controls", "control_groups"),
        )
    return ItemTable(frame=frame, display=table.display)


def _resolve(items: ItemsSpec, source: YamlSource, key: PathKey) -> ItemTable:
    chosen = [k for k in ("csv", "dataset", "generate") if getattr(items, k) is not None]
    if len(chosen) != 1:
        raise ItemProblem(
            key,
            "give exactly one item source: csv, dataset or generate "
            f"(found {', '.join(chosen) or 'none'})",
        )
    if items.csv is not None:
        return _from_csv(items, source.path.parent / items.csv, key)
    if items.dataset is not None:
        return _from_dataset(items, source, key)
    return _generated(items, source, key)


def _from_csv(items: ItemsSpec, path: Path, key: PathKey) -> ItemTable:
    if not path.is_file():
        raise ItemProblem((*key, "csv"), f"item file {path} does not exist")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ItemProblem((*key, "csv"), f"cannot read item file {path}: {exc}") from None
    frame.columns = [c.strip() for c in frame.columns]
    if items.id_column not in frame.columns:
        raise ItemProblem(
            (*key, "id_column"),
            f"{path} has no column {items.id_column!r} (columns: {', '.join(frame.columns)})",
        )
    display = items.display or [c for c in frame.columns if c != items.id_column][:2]
    missing = [c for c in display if c not in frame.columns]
    if missing:
        raise ItemProblem(
            (*key, "display"),
            f"{path} has no column(s) {', '.join(missing)} (columns: {', '.join(frame.columns)})",
        )
    frame = frame.rename(columns={items.id_column: "item_id"})
    frame["item_id"] = frame["item_id"].str.strip()
    if frame.empty:
        raise ItemProblem((*key, "csv"), f"item file {path} has no items")
    empty = frame.index[frame["item_id"] == ""]
    if len(empty):
        raise ItemProblem((*key, "csv"), f"{path}:{empty[0] + 2}: empty item id")
    duplicated = frame.index[frame["item_id"].duplicated()]
    if len(duplicated):
        row = duplicated[0]
        raise ItemProblem(
            (*key, "csv"), f"{path}:{row + 2}: item id {frame.at[row, 'item_id']!r} appears twice"
        )
    return ItemTable(frame=frame.reset_index(drop=True), display=list(display))


def _from_dataset(items: ItemsSpec, source: YamlSource, key: PathKey) -> ItemTable:
    try:
        dataset = load_ws353(items.path, base=source.path.parent.parent)
    except DatasetError as exc:
        raise ItemProblem((*key, "path" if items.path else "dataset"), str(exc)) from None
    frame = dataset.items[["item_id", "word1", "word2"]].copy()
    raters = ALL_RATERS if items.dataset == "ws353-16" else PAPER_RATERS
    means = dataset.rater_table(raters).groupby("item_id")["value"].mean()
    frame["mean"] = means.reindex(frame["item_id"]).to_numpy()
    display = items.display or ["word1", "word2"]
    missing = [c for c in display if c not in frame.columns]
    if missing:
        raise ItemProblem(
            (*key, "display"), f"ws353 has no column(s) {', '.join(missing)} (it has word1, word2)"
        )
    return ItemTable(frame=frame, display=list(display))


def _generated(items: ItemsSpec, source: YamlSource, key: PathKey) -> ItemTable:
    if items.source is None:
        raise ItemProblem(key, "a generator needs a `source` to sample items from")
    if items.n is None:
        raise ItemProblem(key, "a generator needs `n`, the number of items to make")
    base = _resolve(items.source, source, (*key, "source"))
    if "mean" not in base.frame.columns:
        raise ItemProblem(
            (*key, "source"),
            "pairs_of_pairs needs the source's item means: use a "
            "dataset, or a CSV with a `mean` column",
        )
    frame = base.frame.copy()
    frame["mean"] = pd.to_numeric(frame["mean"], errors="coerce")
    if frame["mean"].isna().any():
        raise ItemProblem((*key, "source"), "the source's `mean` column must be numeric")
    try:
        generated = pairs_of_pairs(frame, base.display, items.n, items.seed)
    except ValueError as exc:
        raise ItemProblem((*key, "n"), str(exc)) from None
    display = [f"p_{c}" for c in base.display] + [f"q_{c}" for c in base.display]
    return ItemTable(frame=generated, display=display)


def _mark_column(
    frame: pd.DataFrame, column: str, target: str, role: ItemRole, key: PathKey
) -> pd.DataFrame:
    if column not in frame.columns:
        raise ItemProblem((*key, "column"), f"the items have no column {column!r}")
    frame = frame.rename(columns={column: target}) if column != target else frame
    marked = frame[target].astype(str).str.strip() != ""
    frame.loc[marked, "role"] = role.value
    if target == "gold":
        values = pd.to_numeric(frame[target].where(marked, None), errors="coerce")
        bad = marked & values.isna()
        if bad.any():
            row = frame.index[bad][0]
            raise ItemProblem(
                (*key, "column"),
                f"item {frame.at[row, 'item_id']!r}: gold answer "
                f"{frame.at[row, target]!r} is not a number",
            )
        frame[target] = values.astype(float)
    return frame
