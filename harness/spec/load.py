"""Load a task spec: parse, validate everything at once, resolve items, and hash the instrument."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from harness.errors import DatasetError, Problem, SpecError
from harness.i18n import catalog_file
from harness.roles import ItemRole
from harness.spec.bounded_yaml import short_repr
from harness.spec.checks import check_items, check_settings
from harness.spec.controls import add_control_items, hit_count
from harness.spec.hashing import instrument_hash
from harness.spec.items import ItemProblem, Row, resolve_items
from harness.spec.model import TaskSpec
from harness.spec.references import machine_references
from harness.spec.scale import Scale, resolve_scale
from harness.spec.templates import (
    TemplateNotFound,
    default_template,
    template_files,
    template_search_path,
)
from harness.spec.yaml_source import YamlSource, read_yaml

if TYPE_CHECKING:
    import pandas as pd

CONTENT_ROLES = (ItemRole.ITEM.value, ItemRole.GOLD.value, ItemRole.CONTROL_GROUP.value)


@dataclass(frozen=True)
class LoadedSpec:
    """A valid spec with everything it refers to resolved."""

    path: Path
    spec: TaskSpec
    rows: list[Row]  # content and control items: item_id, role, display columns, ...
    columns: list[str]  # the item table's columns
    display: list[str]
    scale: Scale
    guidelines: str
    template_name: str
    template_files: dict[str, str]
    instrument_hash: str
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict, repr=False)
    # machine_agreement's references: system name -> item_id -> score
    references: dict[str, pd.Series] = field(default_factory=dict, repr=False)

    def line_of(self, dotted: str) -> int | None:
        """The spec file's line of a field (``"hit.reward"``), or of its nearest parent."""
        key: tuple[str | int, ...] = tuple(dotted.split("."))
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None

    @cached_property
    def items(self) -> pd.DataFrame:
        """The item table (built on first use: checking a spec needs no table library)."""
        import pandas as pd

        return pd.DataFrame.from_records(self.rows, columns=self.columns)

    @property
    def n_content_items(self) -> int:
        return sum(row["role"] in CONTENT_ROLES for row in self.rows)

    @property
    def n_control_items(self) -> int:
        return len(self.rows) - self.n_content_items

    @property
    def n_hits(self) -> int:
        return hit_count(self.n_content_items, self.spec.items_per_hit)

    @property
    def assignments(self) -> int:
        return self.n_hits * self.spec.raters_per_item

    @property
    def judgments(self) -> int:
        """Judgments the study collects in all, repeated showings included."""
        repeats = self.spec.controls.repeated.per_hit if self.spec.controls.repeated else 0
        showings = len(self.rows) + repeats * self.n_hits
        return showings * self.spec.raters_per_item


def load_spec(path: str | Path) -> LoadedSpec:
    """Read and validate ``path``; raise `SpecError` with every problem, each with its line."""
    src = read_yaml(Path(path))
    if isinstance(src.data, dict) and "arms" in src.data:
        raise SpecError(
            [
                src.problem(
                    ("arms",),
                    "this spec declares arms (variants of the instrument): it is read by "
                    "`harness validate` and `harness.spec.arms.load_arms`, one instrument per "
                    "arm; a command that runs one instrument needs a spec without arms",
                )
            ]
        )
    return load_source(src)


def load_source(src: YamlSource) -> LoadedSpec:
    """Validate an already read spec (`load_spec`'s work; `harness.spec.arms` gives each arm's
    merged document here); raise `SpecError` with every problem, each with its line."""
    if not isinstance(src.data, dict):
        raise SpecError(
            [src.problem((), "a task spec is a mapping of keys (study, type, items, ...)")]
        )
    spec, problems = _validate_structure(src)
    if spec is None:
        raise SpecError(problems)
    structural = list(problems)
    problems += [p for p in check_settings(spec, src) if not _covered(p, structural)]
    scale = resolve_scale(spec.type, spec.scale)
    items = display = None
    columns: list[str] = []
    try:
        table = resolve_items(spec, src)
        items, columns, display = table.rows, table.columns, table.display
    except ItemProblem as exc:
        found = src.problem(exc.key, exc.message)
        if not _covered(found, structural):  # e.g. "no item source" after a bad items.csv
            problems.append(found)
    guidelines = _guidelines_text(spec, src, problems)
    template_name = spec.template or default_template(spec.type)
    files: dict[str, str] = {}
    try:
        files = template_files(
            Path(template_name).name if spec.template else template_name,
            template_search_path(src.path.parent, spec.template),
        )
    except TemplateNotFound as exc:
        problems.append(src.problem(("template",), f"template {exc.name!r} not found"))
    references: dict[str, pd.Series] = {}
    try:
        references = machine_references(spec.screening, src.path.parent)
    except DatasetError as exc:
        problems.append(src.problem(("screening", "machine_agreement", "references"), str(exc)))
    if items is not None and display is not None:
        problems += [
            p for p in check_items(spec, items, display, scale, src) if not _covered(p, structural)
        ]
        if not problems:
            try:
                items = add_control_items(spec, items, display)
            except ValueError as exc:
                problems.append(src.problem(("controls",), str(exc)))
    if problems or items is None or display is None:
        raise SpecError(sorted(problems, key=lambda p: (p.line or 0, p.field)))

    catalog = catalog_file(spec.language)
    if catalog is not None:  # the words participants read are part of the procedure
        files[f"catalogs/{catalog.name}"] = catalog.read_text(encoding="utf-8")
    digest = instrument_hash(spec, items, columns, display, guidelines, files)
    return LoadedSpec(
        path=src.path,
        spec=spec,
        rows=items,
        columns=columns,
        display=display,
        scale=scale,
        guidelines=guidelines,
        template_name=template_name,
        template_files=files,
        instrument_hash=digest,
        lines=dict(src.lines),
        references=references,
    )


def _validate_structure(src: YamlSource) -> tuple[TaskSpec | None, list[Problem]]:
    """Validate the structure; on errors, also try a repaired copy so later checks still run.

    The repair drops unknown keys and ill-typed values (falling back to defaults), so a spec
    with several kinds of mistakes gets all of them reported at once. The repaired spec is
    only used to find more problems, never loaded.
    """
    try:
        return TaskSpec.model_validate(src.data), []
    except ValidationError as exc:
        problems = _pydantic_problems(exc, src)
        repaired = copy.deepcopy(src.data)
        for error in exc.errors():
            _drop(repaired, [k for k in error["loc"] if not _is_union_tag(k)])
    try:
        return TaskSpec.model_validate(repaired), problems
    except ValidationError:
        return None, problems


def _drop(data: Any, loc: list[Any]) -> None:
    for key in loc[:-1]:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(data, dict) and loc:
        data.pop(loc[-1], None)


def _covered(problem: Problem, reported: list[Problem]) -> bool:
    """Whether an earlier structural problem already points at this field or one containing it."""
    return any(
        problem.field == r.field
        or problem.field.startswith(r.field + ".")
        or r.field.startswith(problem.field + ".")
        for r in reported
        if r.field
    )


def _guidelines_text(spec: TaskSpec, src: YamlSource, problems: list[Problem]) -> str:
    g = spec.guidelines
    if g.text is not None:
        return g.text
    if g.file is not None:
        path = src.path.parent / g.file
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""  # check_settings reported the missing file
    if g.dataset is not None:
        from harness.datasets.ws353 import locate_ws353, read_instructions

        try:
            return read_instructions(
                locate_ws353(
                    spec.items.path if spec.items.dataset else None, base=src.path.parent.parent
                )
            )
        except DatasetError as exc:
            problems.append(src.problem(("guidelines", "dataset"), str(exc)))
    return ""


def _pydantic_problems(exc: ValidationError, src: YamlSource) -> list[Problem]:
    problems = []
    for error in exc.errors():
        loc = tuple(k for k in error["loc"] if not _is_union_tag(k))
        if error["type"] == "extra_forbidden":
            allowed = _allowed_keys(loc[:-1])
            hint = f"; allowed here: {', '.join(allowed)}" if allowed else ""
            message = f"unknown key{hint}"
        elif error["type"] == "missing":
            message = "is required"
        else:
            message = error["msg"].removeprefix("Value error, ")
            message = message[0].lower() + message[1:]
            shown = short_repr(error.get("input"))
            if "input" in error and not isinstance(error["input"], dict | list):
                if "got " not in message:
                    message += f" (got {shown})"
        problems.append(src.problem(loc, message))
    return problems


def _is_union_tag(key: Any) -> bool:
    """pydantic puts union member names (``float``, ``constrained-int``) into error locations."""
    return isinstance(key, str) and (
        key in {"float", "int", "str", "decimal", "none"}
        or key.startswith(("constrained-", "function-"))
    )


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    model: Any = TaskSpec
    for key in loc:
        if isinstance(key, int):
            continue
        info = model.model_fields.get(key) if _is_model(model) else None
        if info is None:
            return []
        model = _model_in(info.annotation)
        if model is None:
            return []
    return list(model.model_fields) if _is_model(model) else []


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def summary_counts(loaded: LoadedSpec) -> dict[str, int]:
    """The numbers `harness validate` prints."""
    return {
        "items": loaded.n_content_items,
        "control_items": loaded.n_control_items,
        "hits": loaded.n_hits,
        "assignments": loaded.assignments,
        "judgments": loaded.judgments,
        "items_per_assignment": math.ceil(loaded.judgments / max(loaded.assignments, 1)),
    }
