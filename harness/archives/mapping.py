"""Which cells of a batch-results row hold which item's answer: a spec's (or the command
line's) mapping, or harness's own task-page fields.

A mapping names, for each of ``per_row`` answers in a row, the column naming the item (its id,
or the item's display columns by the ``Input.*`` columns that showed them) and the column
holding the answer; ``{n}`` in a name counts 1..per_row. Without a mapping a row is read as
harness's own task pages posted it (``Answer.item-0``, ``Answer.value-0``, ...; or the same
fields inside a crowd form's ``taskAnswers``). A crowd form's fields are read as if each were
an ``Answer.<field>`` column; a nested object's fields are joined with dots.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import pandas as pd

from harness.answer import Answer
from harness.archives.batch_layout import ANSWER, TASK_ANSWERS
from harness.errors import InputError
from harness.render.answers import AnswerFormatError, decode_fields
from harness.spec import LoadedSpec
from harness.spec.model import BatchMapSpec

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)
MAX_TASK_ANSWERS = 1_000_000
"""A crowd form's answer longer than this (characters) is refused."""


class RowError(ValueError):
    """What is wrong with one row's answers: (column, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(m for _, m in problems))


@dataclass(frozen=True)
class BatchMapping:
    """Where a row's answers are (see the module docstring); ``item`` is a column naming the
    item's id, or (item column, Input column) pairs naming it by what the HIT showed."""

    item: str | tuple[tuple[str, str], ...]
    value: str | None
    per_row: int = 1
    values: Mapping[str, float] = field(default_factory=dict)
    choices: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: BatchMapSpec) -> BatchMapping:
        item = spec.item if isinstance(spec.item, str) else tuple(sorted(spec.item.items()))
        return cls(item, spec.value, spec.per_row, dict(spec.values), dict(spec.choices))

    def columns(self, n: int) -> tuple[list[str], str]:
        """The item's columns and the answer's column of the ``n``-th answer (1-based); of a
        choice, its fields' names joined with `` | ``."""
        names = [self.item] if isinstance(self.item, str) else [c for _, c in self.item]
        answer = self.value if self.value is not None else " | ".join(self.choices)
        return [_nth(c, n) for c in names], _nth(answer, n)

    def choice_fields(self, n: int) -> dict[str, float]:
        """The ``n``-th answer's choice fields and their values."""
        return {_nth(name, n): value for name, value in self.choices.items()}


def _nth(name: str, n: int) -> str:
    return name.replace("{n}", str(n))


def mapping_for(
    loaded: LoadedSpec,
    item: str | None = None,
    value: str | None = None,
    per_row: int | None = None,
    choices: Mapping[str, float] | None = None,
) -> BatchMapping | None:
    """The command line's mapping (``item`` with ``value`` or ``choices``, and ``per_row``)
    over the spec's ``imports.mturk_batch``; None for harness's own fields (neither gives
    one)."""
    spec = loaded.spec.imports.mturk_batch
    if item is None and value is None and not choices:
        if spec is None:
            if per_row is not None:
                raise InputError("--per-row needs a mapping: --item with --value or --choice")
            return None
        mapping = BatchMapping.from_spec(spec)
        return mapping if per_row is None else replace(mapping, per_row=per_row)
    if item is None or (value is None) == (not choices):
        raise InputError(
            "give --item with one of --value or --choice (or none of them, to use the spec's "
            "mapping)"
        )
    values = dict(spec.values) if spec is not None else {}
    return BatchMapping(item, value, per_row or 1, values, dict(choices or {}))


@dataclass(frozen=True)
class ItemFinder:
    """An instrument's items by id, and by their display columns when a mapping names them so."""

    keys: frozenset[str]
    by_display: Mapping[tuple[str, ...], str]
    ambiguous: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, items: pd.DataFrame, mapping: BatchMapping | None) -> ItemFinder:
        keys = frozenset(str(k) for k in items["item_id"])
        if mapping is None or isinstance(mapping.item, str):
            return cls(keys, {}, frozenset())
        columns = [c for c, _ in mapping.item]
        by: dict[tuple[str, ...], str] = {}
        twice: set[tuple[str, ...]] = set()
        for record in items.to_dict(orient="records"):
            shown = tuple(_display(record.get(c)) for c in columns)
            if shown in by:
                twice.add(shown)
            by[shown] = str(record["item_id"])
        return cls(keys, by, frozenset(twice))


def _display(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def row_answers(
    cells: Mapping[str, str], mapping: BatchMapping | None, finder: ItemFinder
) -> list[Answer]:
    """The answers one row holds, by position; `RowError` with every problem at once."""
    fields = _answer_fields(cells)
    if mapping is None:
        return _harness_answers(fields)
    problems: list[tuple[str, str]] = []
    answers = []
    for n in range(1, mapping.per_row + 1):
        item_columns, value_column = mapping.columns(n)
        key = _item_key(cells, mapping, item_columns, finder, problems)
        if mapping.choices:
            value = _chosen(fields, mapping.choice_fields(n), value_column, problems)
        elif value_column not in fields:
            problems.append((value_column, "no such column or crowd-form field in this row"))
            continue
        else:
            value = _value(fields[value_column], value_column, mapping, problems)
        if key is not None:
            answers.append(Answer(key, n - 1, value, skipped=value is None))
    if problems:
        raise RowError(problems)
    return answers


def _answer_fields(cells: Mapping[str, str]) -> dict[str, str]:
    """The row's cells, with a crowd form's ``taskAnswers`` fields as ``Answer.<field>``."""
    fields = dict(cells)
    text = cells.get(TASK_ANSWERS, "").strip()
    if not text:
        return fields
    if len(text) > MAX_TASK_ANSWERS:
        raise RowError([(TASK_ANSWERS, f"longer than {MAX_TASK_ANSWERS} characters")])
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RowError([(TASK_ANSWERS, f"not JSON: {exc}")]) from exc
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, dict):
        raise RowError([(TASK_ANSWERS, "should hold a JSON array of one object of fields")])
    for name, value in _flat(data, ""):
        fields[ANSWER + name] = value
    return fields


def _flat(data: Mapping[str, object], prefix: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out += _flat(value, name + ".")
        elif isinstance(value, bool):
            out.append((name, "1" if value else ""))
        elif value is None:
            out.append((name, ""))
        else:
            out.append((name, value if isinstance(value, str) else json.dumps(value)))
    return out


def _harness_answers(fields: Mapping[str, str]) -> list[Answer]:
    posted = [(k[len(ANSWER) :], v) for k, v in fields.items() if k.startswith(ANSWER)]
    posted = [(k, v) for k, v in posted if k != "taskAnswers"]
    if not any(k.startswith("item-") for k, _ in posted):
        raise RowError(
            [
                (
                    "Answer.*",
                    "no Answer.item-0 column or field: these are not harness's task pages; "
                    "give the spec an imports.mturk_batch mapping (or --item and --value)",
                )
            ]
        )
    try:
        return decode_fields(posted)
    except AnswerFormatError as exc:
        raise RowError([("Answer.*", p) for p in exc.problems]) from exc


def _item_key(
    cells: Mapping[str, str],
    mapping: BatchMapping,
    columns: list[str],
    finder: ItemFinder,
    problems: list[tuple[str, str]],
) -> str | None:
    missing = [c for c in columns if c not in cells]
    if missing:
        problems += [(c, "no such column in this file") for c in missing]
        return None
    shown = tuple(cells[c].strip() for c in columns)
    if isinstance(mapping.item, str):
        key = shown[0]
        if key not in finder.keys:
            problems.append((columns[0], f"{key[:80]!r} is not an item of the spec"))
            return None
        return key
    if shown in finder.ambiguous:
        problems.append((", ".join(columns), f"{shown!r} shows more than one item of the spec"))
        return None
    found = finder.by_display.get(shown)
    if found is None:
        named = ", ".join(f"{c}={s[:40]!r}" for c, s in zip(columns, shown, strict=True))
        problems.append((", ".join(columns), f"no item of the spec shows {named}"))
    return found


def _chosen(
    fields: Mapping[str, str],
    choices: Mapping[str, float],
    column: str,
    problems: list[tuple[str, str]],
) -> float | None:
    """The value of the one choice whose field is true (none chosen: a skip)."""
    chosen = [name for name in choices if fields.get(name, "") not in ("", "0", "false")]
    if len(chosen) > 1:
        problems.append((column, f"{len(chosen)} choices made ({', '.join(chosen)}); one only"))
        return None
    return float(choices[chosen[0]]) if chosen else None


def _value(
    text: str, column: str, mapping: BatchMapping, problems: list[tuple[str, str]]
) -> float | None:
    text = text.strip()
    if text in mapping.values:
        return float(mapping.values[text])
    if text == "":
        return None
    if len(text) <= 40 and _NUMBER.fullmatch(text):
        return float(text)
    known = f" or one of {sorted(mapping.values)}" if mapping.values else ""
    problems.append((column, f"{text[:40]!r} is not a number{known}"))
    return None
