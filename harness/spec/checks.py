"""Checks that need more than one field, or the items: each returns every problem it finds."""

from __future__ import annotations

from harness.errors import Problem
from harness.i18n import languages
from harness.roles import ItemRole
from harness.spec.heuristics import BY_KEY, HeuristicKey, resolve_heuristic
from harness.spec.items import Row
from harness.spec.model import Action, TaskSpec
from harness.spec.scale import Scale
from harness.spec.study_types import definition
from harness.spec.yaml_source import YamlSource


def check_settings(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    """Counts, money, scale consistency, guidelines, controls and screening policy."""
    problems: list[Problem] = []
    if spec.raters_per_item < 1:
        problems.append(src.problem(("raters_per_item",), "must be at least 1"))
    if spec.items_per_hit < 1:
        problems.append(src.problem(("items_per_hit",), "must be at least 1"))
    if spec.hit.reward < 0:  # a platform's own minimum is the platform's check
        problems.append(
            src.problem(("hit", "reward"), f"must not be negative (got {spec.hit.reward})")
        )
    if spec.hit.max_bonus is not None and spec.hit.max_bonus <= 0:
        problems.append(src.problem(("hit", "max_bonus"), "must be a positive amount"))
    if spec.budget is not None and spec.budget <= 0:
        problems.append(src.problem(("budget",), "must be a positive amount"))
    if spec.language not in languages():
        problems.append(
            src.problem(
                ("language",),
                f"no translation of the participant pages into {spec.language!r}; "
                f"known: {', '.join(languages())}",
            )
        )
    problems += _check_adaptive(spec, src)
    problems += _check_scale(spec, src)
    guideline_sources = [k for k in ("file", "dataset", "text") if getattr(spec.guidelines, k)]
    if len(guideline_sources) != 1:
        problems.append(
            src.problem(
                ("guidelines",),
                "give exactly one of file, dataset or text "
                f"(found {', '.join(guideline_sources) or 'none'})",
            )
        )
    elif spec.guidelines.file and not (src.path.parent / spec.guidelines.file).is_file():
        problems.append(
            src.problem(
                ("guidelines", "file"),
                f"guidelines file {src.path.parent / spec.guidelines.file} does not exist",
            )
        )
    problems += _check_controls(spec, src)
    problems += _check_screening(spec, src)
    batch = spec.imports.mturk_batch
    if batch is not None and (batch.value is None) == (not batch.choices):
        problems.append(
            src.problem(("imports", "mturk_batch"), "give exactly one of value or choices")
        )
    return problems


def _check_adaptive(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    adaptive, key = spec.adaptive, ("adaptive",)
    if adaptive is None:
        return []
    problems = []
    if not adaptive.half_width > 0:
        problems.append(
            src.problem((*key, "half_width"), f"must be positive (got {adaptive.half_width})")
        )
    if adaptive.floor < 2:
        problems.append(src.problem((*key, "floor"), f"must be at least 2 (got {adaptive.floor})"))
    if adaptive.cap < adaptive.floor:
        problems.append(
            src.problem(
                (*key, "cap"), f"must be at least the floor, {adaptive.floor} (got {adaptive.cap})"
            )
        )
    if spec.raters_per_item != adaptive.floor:
        problems.append(
            src.problem(
                ("raters_per_item",),
                f"with adaptive collection every item first gets the floor's raters: set it to "
                f"adaptive.floor, {adaptive.floor} (got {spec.raters_per_item})",
            )
        )
    return problems


def _check_scale(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    scale, kind = spec.scale, definition(spec.type)
    key = ("scale",)
    problems = [src.problem((*key, *path), message) for path, message in kind.check_scale(scale)]
    if not kind.gate_and_order and (scale.gate or scale.order != "as_listed"):
        problems.append(src.problem(key, "gate and order are for likert studies"))
    return problems


def _check_controls(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    controls, kind = spec.controls, definition(spec.type)
    problems = [
        src.problem(("controls", name), why)
        for name, why in kind.refused_controls.items()
        if getattr(controls, name) is not None
    ]
    if controls.repeated is not None and controls.repeated.min_gap >= spec.items_per_hit > 0:
        problems.append(
            src.problem(
                ("controls", "repeated", "min_gap"),
                f"min_gap {controls.repeated.min_gap} leaves no room in a HIT of "
                f"{spec.items_per_hit} items",
            )
        )
    return problems


def _check_screening(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    problems = []
    for name, policy in spec.screening.items():
        key = ("screening", name)
        try:
            info = resolve_heuristic(name)
        except KeyError:
            problems.append(src.problem(key, f"unknown heuristic; known: {', '.join(BY_KEY)}"))
            continue
        if policy.action is Action.REJECT and not (info.objective or info.per_assignment):
            problems.append(
                src.problem(
                    (*key, "action"),
                    f"reject is reserved for objective failures (quick, "
                    f"gold_failure, calibration_failure) and for low_correlation, which "
                    f"judges each assignment; use block or report for {info.key}",
                )
            )
        if policy.references and info.key is not HeuristicKey.MACHINE_AGREEMENT:
            problems.append(
                src.problem(
                    (*key, "references"),
                    f"only machine_agreement compares with machine references, not {info.key}",
                )
            )
    return problems


def check_items(
    spec: TaskSpec, items: list[Row], display: list[str], scale: Scale, src: YamlSource
) -> list[Problem]:
    """Item counts, display columns per study type, gold answers and examples on the scale."""
    problems = []
    content = [row for row in items if row["role"] != ItemRole.IDENTICAL.value]
    if spec.items_per_hit > len(content):
        problems.append(
            src.problem(
                ("items_per_hit",),
                f"{spec.items_per_hit} items per HIT, but the spec has only {len(content)} items",
            )
        )
    wanted = definition(spec.type).sides
    if wanted is not None and len(display) != wanted:
        problems.append(
            src.problem(
                ("items", "display"),
                f"a {spec.type.value} item shows {wanted} sides; display names {len(display)}",
            )
        )
    for row in items:
        if row["role"] == ItemRole.GOLD.value and not scale.accepts(float(row["gold"])):
            problems.append(
                src.problem(
                    ("controls", "gold"),
                    f"item {row['item_id']!r}: gold "
                    f"answer {row['gold']:g} is off the scale ({scale.describe()})",
                )
            )
    for index, example in enumerate(spec.guidelines.examples):
        answer = example.answer
        if isinstance(answer, str) or not scale.accepts(float(answer)):
            problems.append(
                src.problem(
                    ("guidelines", "examples", index, "answer"),
                    f"answer {answer!r} is off the scale ({scale.describe()})",
                )
            )
    return problems
