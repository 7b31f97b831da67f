"""Resolve a spec's item source (CSV, dataset adapter or generator) into an item table.

The item table has ``item_id``, ``role`` (see `harness.roles.ItemRole`), the display columns,
and, when the spec uses them, ``gold`` (designated answer) and ``group`` (control group). It is
kept as plain rows, so that checking a spec costs no table library; `harness.spec.load` makes
the DataFrame when a stage asks for one.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import DatasetError
from harness.roles import ItemRole
from harness.spec.bounded_yaml import PathKey
from harness.spec.model import ItemsSpec, TaskSpec
from harness.spec.yaml_source import YamlSource

Row = dict[str, Any]
"""One item: column -> value (text as read; ``mean`` and ``gold`` as floats, NaN if none)."""


class ItemProblem(Exception):
    """An item source problem at a key path of the spec (collected into a SpecError)."""

    def __init__(self, key: PathKey, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


@dataclass(frozen=True)
class ItemTable:
    """Items as rows, their columns in order, and the columns a page shows."""

    rows: list[Row]
    columns: list[str]
    display: list[str]


def resolve_items(spec: TaskSpec, source: YamlSource) -> ItemTable:
    """The instrument's content items (controls are added later by `harness.spec.controls`)."""
    table = _resolve(spec.items, source, ("items",))
    rows = [{**row, "role": ItemRole.ITEM.value} for row in table.rows]
    columns = [*table.columns, "role"]
    controls = spec.controls
    if controls.gold is not None:
        columns = _mark_column(
            rows, columns, controls.gold.column, "gold", ItemRole.GOLD, ("controls", "gold")
        )
    if controls.control_groups is not None:
        columns = _mark_column(
            rows,
            columns,
            controls.control_groups.column,
            "group",
            ItemRole.CONTROL_GROUP,
            ("controls", "control_groups"),
        )
    return ItemTable(rows=rows, columns=columns, display=table.display)


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
    header, rows = _read_csv(path, (*key, "csv"))
    if items.id_column not in header:
        raise ItemProblem(
            (*key, "id_column"),
            f"{path} has no column {items.id_column!r} (columns: {', '.join(header)})",
        )
    display = items.display or [c for c in header if c != items.id_column][:2]
    missing = [c for c in display if c not in header]
    if missing:
        raise ItemProblem(
            (*key, "display"),
            f"{path} has no column(s) {', '.join(missing)} (columns: {', '.join(header)})",
        )
    columns = ["item_id" if c == items.id_column else c for c in header]
    if not rows:
        raise ItemProblem((*key, "csv"), f"item file {path} has no items")
    seen: set[str] = set()
    table = []
    for line, values in rows:
        row = dict(zip(columns, values, strict=True))
        row["item_id"] = row["item_id"].strip()
        if row["item_id"] == "":
            raise ItemProblem((*key, "csv"), f"{path}:{line}: empty item id")
        if row["item_id"] in seen:
            raise ItemProblem(
                (*key, "csv"), f"{path}:{line}: item id {row['item_id']!r} appears twice"
            )
        seen.add(row["item_id"])
        table.append(row)
    return ItemTable(rows=table, columns=columns, display=list(display))


def _read_csv(path: Path, key: PathKey) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header (names stripped) and every non-blank row with its line number."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            reader = csv.reader(file, strict=True)
            header = [name.strip() for name in next(reader, [])]
            rows = [(reader.line_num, values) for values in reader if values]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ItemProblem(key, f"cannot read item file {path}: {exc}") from None
    if not header:
        raise ItemProblem(key, f"cannot read item file {path}: it has no header")
    for line, values in rows:
        if len(values) != len(header):
            raise ItemProblem(
                key, f"{path}:{line}: {len(values)} fields where the header names {len(header)}"
            )
    return header, rows


def _from_dataset(items: ItemsSpec, source: YamlSource, key: PathKey) -> ItemTable:
    from harness.datasets.ws353 import PAPER_RATERS, SET2_RATERS, locate_ws353, read_pairs

    try:
        pairs = read_pairs(locate_ws353(items.path, base=source.path.parent.parent))
    except DatasetError as exc:
        raise ItemProblem((*key, "path" if items.path else "dataset"), str(exc)) from None
    raters = SET2_RATERS if items.dataset == "ws353-16" else PAPER_RATERS
    columns = ["item_id", "word1", "word2", "mean"]
    rows: list[Row] = [
        {"item_id": p.item_id, "word1": p.word1, "word2": p.word2, "mean": p.mean_of(raters)}
        for p in pairs
    ]
    display = items.display or ["word1", "word2"]
    missing = [c for c in display if c not in columns]
    if missing:
        raise ItemProblem(
            (*key, "display"), f"ws353 has no column(s) {', '.join(missing)} (it has word1, word2)"
        )
    return ItemTable(rows=rows, columns=columns, display=list(display))


def _generated(items: ItemsSpec, source: YamlSource, key: PathKey) -> ItemTable:
    import pandas as pd

    from harness.spec.generators import pairs_of_pairs

    if items.source is None:
        raise ItemProblem(key, "a generator needs a `source` to sample items from")
    if items.n is None:
        raise ItemProblem(key, "a generator needs `n`, the number of items to make")
    base = _resolve(items.source, source, (*key, "source"))
    if "mean" not in base.columns:
        raise ItemProblem(
            (*key, "source"),
            "pairs_of_pairs needs the source's item means: use a "
            "dataset, or a CSV with a `mean` column",
        )
    frame = pd.DataFrame.from_records(base.rows, columns=base.columns)
    frame["mean"] = pd.to_numeric(frame["mean"], errors="coerce")
    if frame["mean"].isna().any():
        raise ItemProblem((*key, "source"), "the source's `mean` column must be numeric")
    try:
        generated = pairs_of_pairs(frame, base.display, items.n, items.seed)
    except ValueError as exc:
        raise ItemProblem((*key, "n"), str(exc)) from None
    display = [f"p_{c}" for c in base.display] + [f"q_{c}" for c in base.display]
    rows = [{str(k): v for k, v in r.items()} for r in generated.to_dict(orient="records")]
    return ItemTable(rows=rows, columns=[str(c) for c in generated.columns], display=display)


def _mark_column(
    rows: list[Row], columns: list[str], column: str, target: str, role: ItemRole, key: PathKey
) -> list[str]:
    """Mark the items with a value in ``column`` with ``role``, the column renamed ``target``
    (``gold`` read as numbers, NaN where unmarked); the columns after the renaming."""
    if column not in columns:
        raise ItemProblem((*key, "column"), f"the items have no column {column!r}")
    for row in rows:
        text = row.pop(column)
        marked = str(text).strip() != ""
        if marked:
            row["role"] = role.value
        if target == "gold":
            row[target] = _number(text) if marked else math.nan
            if math.isnan(row[target]) and marked:
                raise ItemProblem(
                    (*key, "column"),
                    f"item {row['item_id']!r}: gold answer {text!r} is not a number",
                )
        else:
            row[target] = text
    return [target if c == column else c for c in columns]


def _number(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan
