"""Arms (issue #18): named variants of a base spec, each its own instrument, errors at lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.errors import SpecError
from harness.spec import load_spec
from harness.spec.arms import load_arms
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, TASK_SPECS, write_spec


def _spec(tmp_path: Path, arms: str) -> Path:
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    return write_spec(tmp_path, MINIMAL_RATING_SPEC + arms)


def _problems(path: Path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_arms(path)
    return [str(p) for p in caught.value.problems]


def test_the_statements_variants_resolve_to_four_instruments_sharing_items_and_raters():
    armed = load_arms(TASK_SPECS / "statements_variants.yaml")
    assert armed.names == ["ascending", "descending", "plain", "no-gate"]
    assert len({a.instrument_hash for a in armed.arms}) == 4
    spec = {a.name: a.loaded.spec for a in armed.arms}
    assert spec["ascending"].scale.order == "as_listed"
    assert spec["descending"].scale.order == "reversed"
    assert all(o.color is None for o in spec["plain"].scale.options or [])
    assert all(o.color for o in spec["descending"].scale.options or [])
    assert spec["no-gate"].scale.gate is None and spec["ascending"].scale.gate is not None
    # what the arms share is the base's
    assert {s.raters_per_item for s in spec.values()} == {7}
    items = [a.loaded.items["item_id"].tolist() for a in armed.arms]
    assert all(i == items[0] for i in items)
    assert armed.seed == 40 and armed.study_name == "statements-variants"


def test_an_arm_changing_only_items_per_hit_or_reward_is_still_its_own_instrument(tmp_path):
    path = _spec(
        tmp_path,
        'arms:\n  two: {}\n  four: {items_per_hit: 4}\n  rich: {hit: {reward: "0.20"}}\n',
    )
    armed = load_arms(path)
    hashes = [a.instrument_hash for a in armed.arms]
    assert len(set(hashes)) == 3
    # the procedure itself is the same: the plain instrument hash does not see these fields
    assert len({a.loaded.spec.items_per_hit for a in armed.arms}) == 2
    assert armed.arm("four").loaded.n_hits == 1 and armed.arm("two").loaded.n_hits == 2


def test_a_bad_value_in_an_arm_is_reported_at_the_arms_line_with_the_arms_field(tmp_path):
    path = _spec(tmp_path, "arms:\n  a: {}\n  b:\n    scale:\n      max: -5\n")
    problems = _problems(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:21: arms.b.scale")
    assert "max" in problems[0]


def test_an_arm_may_not_change_what_arms_share(tmp_path):
    path = _spec(
        tmp_path,
        "arms:\n  a: {}\n  b:\n    raters_per_item: 5\n    hit: {lifetime: 2d}\n",
    )
    assert _problems(path) == [
        f"{path}:21: arms.b.raters_per_item: an arm cannot change 'raters_per_item': arms "
        "share it; an arm may change guidelines, template, items_per_hit, scale, hit",
        f"{path}:22: arms.b.hit.lifetime: an arm cannot change hit.lifetime; it may change "
        "hit.reward, hit.title, hit.description, hit.keywords",
    ]


def test_two_arms_that_are_the_same_instrument_are_refused(tmp_path):
    path = _spec(tmp_path, "arms:\n  a: {}\n  b:\n    scale: {min: 0}\n")
    (problem,) = _problems(path)
    assert problem.startswith(f"{path}:20: arms.b: arm 'b' is the same instrument as arm 'a'")


def test_one_arm_and_bad_names_are_refused(tmp_path):
    assert _problems(_spec(tmp_path, "arms:\n  only: {}\n")) == [
        f"{tmp_path / 'spec.yaml'}:18: arms: arms is a mapping of at least 2 named arms to "
        "what each changes (e.g. `ascending: {}` and `descending: {scale: {order: reversed}}`)"
    ]
    (problem,) = _problems(_spec(tmp_path, "arms:\n  a: {}\n  Big Arm: {}\n"))
    assert problem.startswith(f"{tmp_path / 'spec.yaml'}:20: arms.Big Arm: arm name 'Big Arm'")


def test_adaptive_collection_with_arms_is_refused_at_the_adaptive_line(tmp_path):
    text = MINIMAL_RATING_SPEC.replace("raters_per_item: 3", "raters_per_item: 4")
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    adaptive = "adaptive: {half_width: 1, floor: 4, cap: 9}\n"
    path = write_spec(tmp_path, text + adaptive + "arms:\n  a: {}\n  b: {items_per_hit: 1}\n")
    assert _problems(path) == [
        f"{path}:18: adaptive: adaptive collection does not run with arms yet (each arm would "
        "need its own items' precision and places): remove `adaptive:` or `arms:`"
    ]
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code != 0 and f"{path}:18: adaptive: adaptive collection" in result.output


def test_a_base_problem_is_reported_once_not_once_per_arm(tmp_path):
    text = MINIMAL_RATING_SPEC.replace("raters_per_item: 3", "raters_per_item: 0")
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    path = write_spec(tmp_path, text + "arms:\n  a: {}\n  b: {items_per_hit: 1}\n  c: {}\n")
    problems = _problems(path)
    assert sum("raters_per_item" in p for p in problems) == 1
    assert any(p.startswith(f"{path}:12: raters_per_item") for p in problems)


def test_a_command_running_one_instrument_refuses_a_spec_with_arms():
    with pytest.raises(SpecError) as caught:
        load_spec(TASK_SPECS / "statements_variants.yaml")
    (problem,) = caught.value.problems
    assert problem.field == "arms" and "one instrument per arm" in problem.message


def test_validate_prints_each_arms_instrument_and_the_cost_of_all_arms():
    result = CliRunner().invoke(main, ["validate", str(TASK_SPECS / "ws353_arms.yaml")])
    assert result.exit_code == 0, result.output
    assert "ws353-arms (rating), 2 arms" in result.output
    assert "arm original: 12 HITs x 13 assignments at $0.75, $163.80; instrument" in result.output
    assert "cost: $327.60 for all 2 arms, MTurk fees included (budget $400.00)" in result.output
