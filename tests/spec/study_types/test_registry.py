"""The study-type registry: every `StudyType` has one definition, every stage asks it, and the
package sits low enough that every stage may (it imports nothing but `harness.spec.model`, and
`harness.i18n` for what a worker is told)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from harness.resources import templates_dir
from harness.spec.model import ControlsSpec, ScaleSpec, StudyType
from harness.spec.study_types import REGISTRY, definition
from tests.factories import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "harness"
STUDY_TYPES = PACKAGE / "spec" / "study_types"


def test_every_study_type_has_one_definition_of_its_own_kind_with_a_built_in_template():
    assert list(REGISTRY) == list(StudyType)
    for kind, found in REGISTRY.items():
        assert found.kind is kind
        assert (templates_dir() / found.template).is_file()


def test_refused_controls_name_controls_a_spec_can_declare():
    for found in REGISTRY.values():
        assert set(found.refused_controls) <= set(ControlsSpec.model_fields)
    controls = list(ControlsSpec.model_fields)
    allowed = {k: [c for c in controls if c not in d.refused_controls] for k, d in REGISTRY.items()}
    assert allowed == {
        StudyType.RATING: ["identical", "repeated", "gold", "random_pairs", "control_groups"],
        StudyType.LIKERT: ["repeated", "gold", "random_pairs", "control_groups"],
        StudyType.PAIR_COMPARISON: ["repeated", "gold", "control_groups"],
    }


def test_no_stage_branches_on_a_study_type():
    branching = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if STUDY_TYPES in path.parents or path == PACKAGE / "spec" / "model.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bStudyType\.[A-Z_]+\b", line):
                branching.append(f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}")
    assert branching == []


def test_the_study_type_package_imports_nothing_from_harness_but_the_spec_model_and_i18n():
    imported = set()
    for path in STUDY_TYPES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    from_harness = {m for m in imported if m.split(".")[0] == "harness"}
    assert {m for m in from_harness if not m.startswith("harness.spec.study_types")} == {
        "harness.spec.model",
        "harness.i18n",
    }


@pytest.mark.parametrize(
    "module", ["harness.spec.study_types", "harness.spec.study_types.pair_comparison"]
)
def test_the_study_type_package_can_be_imported_first(module):
    result = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_each_type_resolves_its_own_scale():
    rating = definition(StudyType.RATING).resolve_scale(ScaleSpec(min=1, max=5, step=0.5))
    assert (rating.min, rating.max, rating.step, rating.options) == (1.0, 5.0, 0.5, ())
    likert = definition(StudyType.LIKERT).resolve_scale(
        ScaleSpec(
            options=[{"value": 1, "label": "no"}, {"value": 3, "label": "yes"}], order="reversed"
        )
    )
    assert likert.options == ((3.0, "yes", None), (1.0, "no", None)) and likert.step == 2.0
    pair = definition(StudyType.PAIR_COMPARISON).resolve_scale(ScaleSpec(skip=True))
    assert [v for v, _, _ in pair.options] == [1.0, -1.0, 0.0]
    assert (pair.min, pair.max, pair.skip) == (-1.0, 1.0, True)


def test_what_a_worker_may_answer_is_said_in_each_types_words():
    skip = "I can't judge this"
    rating = definition(StudyType.RATING)
    fractional = rating.resolve_scale(ScaleSpec(min=0, max=10, fractional=True, decimals=1))
    steps = rating.resolve_scale(ScaleSpec(min=0, max=10, step=2, skip=True))
    likert = definition(StudyType.LIKERT).resolve_scale(
        ScaleSpec(options=[{"value": 1, "label": "no"}, {"value": 2, "label": "yes"}])
    )
    pair = definition(StudyType.PAIR_COMPARISON)
    assert rating.allowed_answers(fractional, skip) == (
        "enter a number from 0 to 10 with at most 1 decimal"
    )
    assert rating.allowed_answers(steps, skip) == (
        'enter a number from 0 to 10 in steps of 2, or tick "I can\'t judge this"'
    )
    assert definition(StudyType.LIKERT).allowed_answers(likert, skip) == (
        "choose one of the options"
    )
    assert pair.allowed_answers(pair.resolve_scale(ScaleSpec(skip=True)), skip) == (
        'choose one of the three answers, or tick "I can\'t judge this"'
    )


def test_items_and_example_answers_are_named_in_each_types_words():
    pair, likert = definition(StudyType.PAIR_COMPARISON), definition(StudyType.LIKERT)
    assert pair.item_label(["cup", "mug", "cup", "planet"]) == "cup – mug vs cup – planet"
    assert likert.item_label(["x" * 70]) == "x" * 57 + "..."
    assert pair.example_answer("0", "They are equally similar") == "They are equally similar"
    assert likert.example_answer("5", "I agree") == "I agree (5)"
    assert definition(StudyType.RATING).example_answer("7.5", None) == "7.5"


def test_alpha_level_for_the_impact_table_is_interval_only_for_ratings():
    levels = {kind: found.alpha_level for kind, found in REGISTRY.items()}
    assert levels == {
        StudyType.RATING: "interval",
        StudyType.LIKERT: "ordinal",
        StudyType.PAIR_COMPARISON: "ordinal",
    }
