"""`harness validate` and the task spec: every mistake reported at once, each with its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.errors import SpecError
from harness.spec import load_spec
from harness.stats.reliability import DEFAULT_ALPHA_MIN
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, TASK_SPECS, write_spec


def _validate(*paths: Path):
    return CliRunner().invoke(main, ["validate", *map(str, paths)])


def _problems(tmp_path: Path, spec_text: str, items: str = MINIMAL_ITEMS) -> list[str]:
    (tmp_path / "items.csv").write_text(items)
    with pytest.raises(SpecError) as caught:
        load_spec(write_spec(tmp_path, spec_text))
    return [str(p) for p in caught.value.problems]


def test_every_shipped_spec_validates_and_prints_its_hash():
    specs = sorted(TASK_SPECS.glob("*.yaml"))
    assert {p.name for p in specs} >= {
        "ws353_reproduction.yaml",
        "ws353_resolution.yaml",
        "statements_likert.yaml",
        "sentence_similarity.yaml",
    }
    result = _validate(*specs)
    assert result.exit_code == 0, result.output
    with_arms = [p for p in specs if "arms:" in p.read_text()]  # one instrument per arm
    assert result.output.count("instrument: ") == len(specs) - len(with_arms)
    assert result.output.count(" arms\n") == len(with_arms) == 2
    assert "ws353-reproduction (rating)" in result.output
    assert "items: 353 + 12 control items" in result.output


def test_the_ws353_reproduction_plan_and_cost(tmp_path):
    loaded = load_spec(TASK_SPECS / "ws353_reproduction.yaml")
    assert loaded.n_content_items == 353 and loaded.n_hits == 12
    assert loaded.assignments == 12 * 13
    # 353 items + 12 identical pairs + one repeated showing per HIT, 13 raters each
    assert loaded.judgments == (353 + 12 + 12) * 13
    result = _validate(TASK_SPECS / "ws353_reproduction.yaml")
    # 156 assignments x $0.75 = $117.00; 13 assignments per HIT pay 40% in fees: $46.80
    assert "cost: $163.80 = $117.00 rewards + $46.80 MTurk fees" in result.output


def test_three_different_mistakes_get_three_line_numbered_errors_and_exit_1(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    text = (
        MINIMAL_RATING_SPEC.replace("  max: 10", "  max: 0")  # line 11: min >= max
        .replace("raters_per_item: 3", "raters_per_item: 0")  # line 12
        .replace("  title: Rate words", "  title: Rate words\n  colour: red")
    )  # line 15
    result = _validate(write_spec(tmp_path, text))
    assert result.exit_code == 1
    spec = tmp_path / "spec.yaml"
    assert result.output.splitlines() == [
        f"{spec}:10: scale.min: min (0) must be below max (0)",
        f"{spec}:12: raters_per_item: must be at least 1",
        f"{spec}:16: hit.colour: unknown key; allowed here: title, description, keywords, "
        "reward, assignment_duration, lifetime, auto_approval_delay, min_seconds, max_bonus",
        "3 problems found.",
    ]


def test_an_unknown_top_level_key_is_an_error_not_ignored(tmp_path):
    problems = _problems(tmp_path, MINIMAL_RATING_SPEC + "rater_per_item: 5\n")
    assert problems == [
        f"{tmp_path / 'spec.yaml'}:18: rater_per_item: unknown key; allowed here: "
        "study, type, items, guidelines, consent, debrief, scale, controls, raters_per_item, "
        "items_per_hit, order, hosting, language, template, hit, qualifications, "
        "screening, budget, alpha_min, adaptive, platform, imports"
    ]


def test_adaptive_settings_are_checked_each_with_its_line(tmp_path):
    spec = MINIMAL_RATING_SPEC + "adaptive:\n  half_width: 0\n  floor: 4\n  cap: 3\n"
    path = tmp_path / "spec.yaml"
    assert _problems(tmp_path, spec) == [
        f"{path}:12: raters_per_item: with adaptive collection every item first gets the "
        "floor's raters: set it to adaptive.floor, 4 (got 3)",
        f"{path}:19: adaptive.half_width: must be positive (got 0.0)",
        f"{path}:21: adaptive.cap: must be at least the floor, 4 (got 3)",
    ]


def test_an_adaptive_spec_is_another_instrument_than_the_fixed_one(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    fixed = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    adaptive = MINIMAL_RATING_SPEC + "adaptive: {half_width: 0.5, floor: 3}\n"
    loaded = load_spec(write_spec(tmp_path, adaptive))
    assert loaded.spec.adaptive is not None and loaded.spec.adaptive.cap == 40
    assert loaded.instrument_hash != fixed.instrument_hash


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ("csv: items.csv", "csv: nowhere.csv"),
            "items.csv: item file {dir}/nowhere.csv does not exist",
        ),
        (("  min: 0", "  min: 10"), "scale.min: min (10) must be below max (10)"),
        (
            ("items_per_hit: 2", "items_per_hit: 9"),
            "items_per_hit: 9 items per HIT, but the spec has only 4 items",
        ),
        (("raters_per_item: 3", "raters_per_item: 0"), "raters_per_item: must be at least 1"),
        (('reward: "0.10"', 'reward: "-0.10"'), "hit.reward: must not be negative (got -0.10)"),
        (
            ("type: rating", "type: ranking"),
            "type: input should be 'rating', 'likert' or 'pair_comparison' (got 'ranking')",
        ),
    ],
)
def test_each_kind_of_mistake_gets_a_clear_message(tmp_path, change, expected):
    problems = _problems(tmp_path, MINIMAL_RATING_SPEC.replace(*change))
    assert len(problems) == 1
    assert problems[0].endswith(expected.format(dir=tmp_path)), problems[0]


def test_an_empty_item_file_is_an_error(tmp_path):
    problems = _problems(tmp_path, MINIMAL_RATING_SPEC, items="item_id,left,right\n")
    assert problems[0].endswith(f"items.csv: item file {tmp_path / 'items.csv'} has no items")


def test_a_gold_answer_off_the_scale_is_an_error(tmp_path):
    items = "item_id,left,right,gold\na,cat,dog,11\nb,car,tree,\nc,sun,moon,\nd,cup,mug,\n"
    spec = MINIMAL_RATING_SPEC + "controls:\n  gold: {column: gold}\n"
    problems = _problems(tmp_path, spec, items=items)
    assert problems == [
        f"{tmp_path / 'spec.yaml'}:19: controls.gold: item 'a': gold answer 11 is "
        "off the scale (0 to 10, steps of 1)"
    ]


def test_yaml_syntax_errors_point_at_their_line(tmp_path):
    problems = _problems(tmp_path, MINIMAL_RATING_SPEC.replace("  min: 0", "  min: [0"))
    assert problems[0].startswith(f"{tmp_path / 'spec.yaml'}:") and "not valid YAML" in problems[0]


def test_the_ws353_location_can_be_overridden_by_environment(tmp_path, monkeypatch, ws353_dir):
    spec = (TASK_SPECS / "ws353_reproduction.yaml").read_text()
    path = write_spec(tmp_path, spec)
    (tmp_path / "guidelines").mkdir()
    (tmp_path / "guidelines" / "ws353.txt").write_bytes(
        (TASK_SPECS / "guidelines" / "ws353.txt").read_bytes()
    )
    monkeypatch.setenv("HARNESS_WS353_DIR", str(tmp_path / "missing"))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert "WS353 not found" in str(caught.value) and "HARNESS_WS353_DIR" in str(caught.value)
    monkeypatch.setenv("HARNESS_WS353_DIR", str(ws353_dir))
    assert load_spec(path).n_content_items == 353


def test_reject_is_refused_for_worker_level_heuristics_but_allowed_for_h7(tmp_path):
    # H7 judges each assignment (the published rule rejects the failing HIT response), so a
    # spec may reject on it; a worker-level heuristic such as H8 may only block or report.
    problems = _problems(
        tmp_path, MINIMAL_RATING_SPEC + "screening:\n  consensus_correlation: {action: reject}\n"
    )
    assert len(problems) == 1 and problems[0].endswith(
        "screening.consensus_correlation.action: reject is reserved for objective failures "
        "(quick, gold_failure, calibration_failure) and for low_correlation, which judges each "
        "assignment; use block or report for consensus_correlation"
    ), problems
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    spec = write_spec(tmp_path, MINIMAL_RATING_SPEC + "screening:\n  H7: {action: reject}\n")
    assert load_spec(spec).spec.screening["H7"].action.value == "reject"


def test_machine_agreement_reads_its_references_beside_the_spec_and_only_it_has_them(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    (tmp_path / "gpt.csv").write_text("item_id,score\na,0.1\nb,0.9\nc,0.5\nd,0.4\n")
    policy = "screening:\n  H11: {action: block, references: [gpt.csv, bundled=gpt.csv]}\n"
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + policy))
    assert set(loaded.references) == {"gpt", "bundled"}
    assert loaded.references["gpt"].to_dict() == {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.4}
    problems = _problems(
        tmp_path,
        MINIMAL_RATING_SPEC
        + "screening:\n  quick: {references: [gpt.csv]}\n"
        + "  machine_agreement: {references: [missing.csv]}\n",
    )
    assert len(problems) == 2, problems
    assert problems[0].endswith(
        "screening.quick.references: only machine_agreement compares with machine references, "
        "not quick"
    )
    assert "missing.csv: no such system file" in problems[1]


def test_a_spec_without_references_hashes_as_before_and_one_with_them_differently(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    (tmp_path / "gpt.csv").write_text("item_id,score\na,0.1\nb,0.9\nc,0.5\nd,0.4\n")
    plain = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + "screening:\n  H11: {}\n"))
    spelled = load_spec(
        write_spec(tmp_path, MINIMAL_RATING_SPEC + "screening:\n  H11: {references: []}\n")
    )
    given = load_spec(
        write_spec(tmp_path, MINIMAL_RATING_SPEC + "screening:\n  H11: {references: [gpt.csv]}\n")
    )
    assert plain.instrument_hash == spelled.instrument_hash != given.instrument_hash


def test_a_bonus_ceiling_must_be_positive(tmp_path):
    text = MINIMAL_RATING_SPEC.replace('  reward: "0.10"', '  reward: "0.10"\n  max_bonus: 0')
    [problem] = _problems(tmp_path, text)
    assert problem.endswith(": hit.max_bonus: must be a positive amount")


def test_alpha_min_is_a_share_of_perfect_agreement_and_not_part_of_the_instrument(tmp_path):
    [problem] = _problems(tmp_path, MINIMAL_RATING_SPEC + "alpha_min: 1.5\n")
    assert problem.endswith(":18: alpha_min: input should be less than or equal to 1 (got 1.5)")
    plain = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    strict = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC + "alpha_min: 0.8\n"))
    assert (plain.spec.alpha_min, strict.spec.alpha_min) == (DEFAULT_ALPHA_MIN, 0.8)
    assert plain.instrument_hash == strict.instrument_hash
