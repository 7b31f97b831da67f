"""An adaptive study is priced from its floor to its cap (validate, launch, plan), and its
budget bounds the collection: the floor must fit, and past it collection stops when the
budget is spent."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from harness.platform.adaptive_range import adaptive_range
from harness.platform.registry import platform_of_target
from harness.spec import load_spec
from tests.platform.factories import harness_cli, small_spec

ADAPTIVE = "{half_width: 2.5, floor: 3, cap: 10}"


def _spec(tmp_path: Path, **extra: str) -> Path:
    return small_spec(
        tmp_path, items=6, per_hit=2, raters=3, duration="10m", adaptive=ADAPTIVE, **extra
    )


def test_the_range_runs_from_the_floor_to_the_cap_with_the_platforms_fees(tmp_path):
    loaded = load_spec(_spec(tmp_path))
    found = adaptive_range(loaded, platform_of_target("local"))
    assert found is not None
    # floor: 3 HITs x 3 raters x $0.10 + MTurk's 20%; cap: 6 items x 7 more values, 2 to a
    # HIT of one rater, 21 HITs of $0.10 + $0.02
    assert (found.floor.judgments, found.floor.assignments, found.floor.cost) == (
        18,
        9,
        Decimal("1.08"),
    )
    assert (found.cap.judgments, found.cap.assignments, found.cap.cost) == (
        60,
        30,
        Decimal("3.60"),
    )
    assert found.composed_hits == 21 and found.per_hit == Decimal("0.12")
    assert found.cap.seconds == 30 * 600
    assert [found.affordable(Decimal(b)) for b in ("1.08", "1.40", "3.60", "99")] == [0, 2, 21, 21]


def test_a_fixed_study_has_no_range(tmp_path):
    loaded = load_spec(small_spec(tmp_path))
    assert adaptive_range(loaded, platform_of_target("local")) is None


def test_validate_shows_the_range_and_what_the_budget_covers_of_it(tmp_path):
    result = harness_cli("validate", str(_spec(tmp_path, budget="'1.40'")))
    assert result.exit_code == 0, result.output
    assert (
        "  judgments: 18\n"
        "  cost: $1.08 = $0.90 rewards + $0.18 MTurk fees (budget $1.40)\n"
        "  adaptive: 3 to 10 raters per item: 18 to 60 judgments in 9 to 30 assignments\n"
        "  adaptive: $1.08 to $3.60 with fees; raters' time at most 1.5 h to 5.0 h (all the "
        "time allowed)\n"
        "  adaptive: the budget $1.40 covers the floor and 2 of the 21 HITs the cap may need; "
        "collection stops when the budget is spent, whatever items are short\n"
    ) in result.output


def test_validate_warns_that_mturk_hosted_pages_cannot_keep_a_worker_from_an_item(tmp_path):
    warning = "  warning: with hosting: mturk nothing keeps a worker from a later HIT holding"
    assert warning in harness_cli("validate", str(_spec(tmp_path))).output
    external = _spec(tmp_path, hosting="external")
    assert warning not in harness_cli("validate", str(external)).output


def test_validate_says_when_the_budget_covers_the_cap_or_there_is_none(tmp_path):
    covered = harness_cli("validate", str(_spec(tmp_path, budget="'3.60'")))
    assert "  adaptive: the budget $3.60 covers the cap\n" in covered.output
    unbounded = harness_cli("validate", str(_spec(tmp_path)))
    assert "  adaptive: no budget set: collection may go on to the cap's cost\n" in unbounded.output


def test_validate_refuses_a_budget_below_the_floor_at_its_line(tmp_path):
    path = _spec(tmp_path, budget="'1.00'")
    result = harness_cli("validate", str(path))
    assert result.exit_code != 0
    assert "  adaptive: the budget $1.00 does not cover the floor\n" in result.output
    assert (
        f"{path}:20: budget: the cost of the adaptive floor (3 raters per item) $1.08 exceeds "
        "the budget $1.00"
    ) in result.output


def test_launch_shows_the_range_and_refuses_a_budget_below_the_floor(tmp_path):
    path = _spec(tmp_path, budget="'1.40'")
    dry = harness_cli("launch", str(path), "--target", "local", "--dry-run", "--budget", "1.3")
    assert dry.exit_code == 0, dry.output
    assert "  adaptive: the budget $1.3 covers the floor and 1 of the 21 HITs" in dry.output
    db = f"sqlite:///{tmp_path / 'h.db'}"
    refused = harness_cli("launch", str(path), "--target", "local", "--budget", "1", "--db", db)
    assert refused.exit_code != 0
    assert (
        "the adaptive floor costs $1.08 (rewards and fees), more than --budget $1;"
        in refused.output
    )


def test_plan_prices_the_floor_and_the_cap(tmp_path):
    path = _spec(tmp_path)
    text = harness_cli("plan", str(path))
    assert text.exit_code == 0, text.output
    assert "now 3 raters per item (the adaptive floor) for $1.08" in text.output
    assert (
        "adaptive: 3 to 10 raters per item, 18 to 60 judgments, $1.08 to $3.60; each item "
        "stops at the target or the cap, the study when the budget is spent"
    ) in text.output
    figures = json.loads(harness_cli("plan", str(path), "--json").output)
    assert figures["adaptive"]["floor"] == {
        "raters_per_item": 3,
        "judgments": 18,
        "cost": "1.08",
        "rater_hours": None,  # WS353's distribution has no times
    }
    assert figures["adaptive"]["cap"]["judgments"] == 60
    assert figures["adaptive"]["cap"]["cost"] == "3.60"
