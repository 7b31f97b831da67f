"""Checks that need more than one field, or the items: each returns every problem it finds."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from harness.errors import Problem
from harness.roles import ItemRole
from harness.spec.heuristics import BY_KEY, resolve_heuristic
from harness.spec.model import Action, StudyType, TaskSpec
from harness.spec.scale import Scale
from harness.spec.yaml_source import YamlSource

MIN_REWARD = Decimal("0.01")  # MTurk's smallest reward per assignment


def check_settings(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    """Counts, money, scale consistency, guidelines, controls and screening policy."""
    problems: list[Problem] = []
    if spec.raters_per_item < 1:
        problems.append(src.problem(("raters_per_item",), "must be at least 1"))
    if spec.items_per_hit < 1:
        problems.append(src.problem(("items_per_hit",), "must be at least 1"))
    if spec.hit.reward < 0:
        problems.append(
            src.problem(("hit", "reward"), f"must not be negative (got {spec.hit.reward})")
        )
    elif spec.hit.reward < MIN_REWARD:
        problems.append(
            src.problem(("hit", "reward"), f"must be at least {MIN_REWARD} (MTurk's minimum)")
        )
    if spec.budget is not None and spec.budget <= 0:
        problems.append(src.problem(("budget",), "must be a positive amount"))
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
    return problems


def _check_scale(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    scale, problems = spec.scale, []
    key = ("scale",)
    if spec.type is StudyType.RATING:
        if scale.min is None or scale.max is None:
            problems.append(src.problem(key, "a rating scale needs min and max"))
        elif scale.min >= scale.max:
            problems.append(
                src.problem((*key, "min"), f"min ({scale.min:g}) must be below max ({scale.max:g})")
            )
        elif scale.step > scale.max - scale.min:
            problems.append(src.problem((*key, "step"), "step is larger than the scale's range"))
        if scale.options:
            problems.append(
                src.problem(
                    (*key, "options"),
                    "options are for likert studies; a rating scale uses min, max and step",
                )
            )
        for anchor in scale.labels:
            if (
                scale.min is not None
                and scale.max is not None
                and not scale.min <= anchor <= scale.max
            ):
                problems.append(
                    src.problem((*key, "labels"), f"label at {anchor:g} is off the scale")
                )
    elif spec.type is StudyType.LIKERT:
        if not scale.options or len(scale.options) < 2:
            problems.append(src.problem(key, "a likert scale needs at least two options"))
        elif len({o.value for o in scale.options}) != len(scale.options):
            problems.append(src.problem((*key, "options"), "option values must be distinct"))
        if scale.min is not None or scale.max is not None:
            problems.append(
                src.problem(
                    key, "a likert scale takes its range from its options; remove min and max"
                )
            )
    else:
        if scale.options or scale.min is not None or scale.max is not None:
            problems.append(
                src.problem(
                    key,
                    "a pair comparison has a fixed scale (first pair, "
                    "second pair, equally similar); remove min, max and options",
                )
            )
    if spec.type is not StudyType.LIKERT and (scale.gate or scale.order != "as_listed"):
        problems.append(src.problem(key, "gate and order are for likert studies"))
    return problems


def _check_controls(spec: TaskSpec, src: YamlSource) -> list[Problem]:
    problems = []
    controls = spec.controls
    if controls.identical is not None and spec.type is not StudyType.RATING:
        problems.append(
            src.problem(
                ("controls", "identical"),
                "identical pairs are calibration items for rating studies",
            )
        )
    if controls.random_pairs is not None and spec.type is StudyType.PAIR_COMPARISON:
        problems.append(
            src.problem(
                ("controls", "random_pairs"), "random pairs are not defined for pair comparisons"
            )
        )
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
        if policy.action is Action.REJECT and not info.objective:
            problems.append(
                src.problem(
                    (*key, "action"),
                    f"reject is reserved for objective failures (quick, "
                    f"gold_failure, calibration_failure); use block or report "
                    f"for {info.key}",
                )
            )
    return problems


def check_items(
    spec: TaskSpec, items: pd.DataFrame, display: list[str], scale: Scale, src: YamlSource
) -> list[Problem]:
    """Item counts, display columns per study type, gold answers and examples on the scale."""
    problems = []
    content = items[items["role"] != ItemRole.IDENTICAL.value]
    if spec.items_per_hit > len(content):
        problems.append(
            src.problem(
                ("items_per_hit",),
                f"{spec.items_per_hit} items per HIT, but the spec has only {len(content)} items",
            )
        )
    wanted = {StudyType.RATING: 2, StudyType.PAIR_COMPARISON: 4}.get(spec.type)
    if wanted is not None and len(display) != wanted:
        problems.append(
            src.problem(
                ("items", "display"),
                f"a {spec.type.value} item shows {wanted} sides; display names {len(display)}",
            )
        )
    if "gold" in items.columns:
        for _, row in items[items["role"] == ItemRole.GOLD.value].iterrows():
            if not scale.accepts(float(row["gold"])):
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
