"""Planning a study from a pilot: raters per item for each target, checked against the
formulas' definitions and, for alpha's interval, against the bootstrap on WS353 itself."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from harness.characterize.inputs import read_instrument
from harness.characterize.planning import (
    Targets,
    alpha_width,
    item_se,
    items_for_alpha_width,
    needs,
    read_pilot,
    resolution_at,
)
from harness.cli import main
from harness.errors import InputError
from harness.stats import bootstrap_alpha

SPEC = "task_specs/ws353_reproduction.yaml"


def _pilot_with_sds(sds: list[float], raters: int = 4) -> pd.DataFrame:
    """A long table whose items have exactly these sample sds (values mean +/- a spread)."""
    rows = []
    for i, sd in enumerate(sds):
        # values symmetric around 5 with sample sd ``sd``: +-a for raters/2 each
        half = raters // 2
        a = sd * math.sqrt((raters - 1) / raters)
        for w in range(raters):
            rows.append(
                {"item_id": f"i{i}", "worker_id": f"w{w}", "value": 5 + (a if w < half else -a)}
            )
    return pd.DataFrame(rows)


def test_item_se_target_gives_the_raters_the_worst_item_needs():
    pilot = read_pilot(_pilot_with_sds([1.0, 1.5, 2.0]), "p")
    (need,) = needs(pilot, Targets(item_se=0.5), items=3, spec_raters=4)
    assert need.raters == 16  # (2.0 / 0.5)^2
    assert need.at_spec == pytest.approx(1.0)  # 2.0 / sqrt(4)
    assert item_se(pilot, 16) == pytest.approx(0.5)


def test_item_se_coverage_plans_for_that_share_of_items():
    pilot = read_pilot(_pilot_with_sds([1.0] * 9 + [4.0]), "p")
    every = needs(pilot, Targets(item_se=0.5), items=10, spec_raters=4)[0]
    most = needs(pilot, Targets(item_se=0.5, coverage=0.8), items=10, spec_raters=4)[0]
    assert every.raters == 64 and most.raters == 4


def test_resolution_target_tells_two_typical_items_apart_at_95_percent():
    pilot = read_pilot(_pilot_with_sds([1.0, 1.0, 1.0]), "p")
    (need,) = needs(pilot, Targets(resolution=1.0), items=3, spec_raters=4)
    assert need.raters == math.ceil(1.959963984540054**2 * 2)  # z^2 * 2 * s^2 / t^2
    assert resolution_at(pilot, need.raters) <= 1.0 < resolution_at(pilot, need.raters - 1)


def test_alpha_width_shrinks_with_raters_and_items_and_inverts():
    assert alpha_width(0.6, 4, 353) > alpha_width(0.6, 13, 353) > alpha_width(0.6, 13, 1000)
    assert alpha_width(0.6, 1, 353) == math.inf
    items = items_for_alpha_width(0.6, 13, 0.05)
    assert alpha_width(0.6, 13, items) <= 0.05 < alpha_width(0.6, 13, items - 1)


def test_an_alpha_width_more_raters_cannot_reach_names_the_items_that_would():
    ws353 = read_instrument("ws353", None)
    pilot = read_pilot(ws353.judgments, "ws353")
    (need,) = needs(pilot, Targets(alpha_width=0.04), items=353, spec_raters=13)
    assert need.raters is None
    assert "items at 13 raters each would" in need.note


@pytest.mark.parametrize("raters", [5, 13])
def test_alpha_width_is_within_a_fifth_of_the_bootstrap_on_ws353(raters):
    table = read_instrument("ws353", None).judgments.reset_index(drop=True)
    rng = np.random.default_rng(raters)
    keep = np.concatenate(
        [
            rng.choice(rows, raters, replace=False)
            for rows in table.groupby("item_id").indices.values()
        ]
    )
    sample = table.iloc[keep]
    boot = bootstrap_alpha(sample, "interval", resamples=400, seed=1)
    formula = alpha_width(read_pilot(sample, "s").alpha, raters, 353)
    assert formula == pytest.approx(boot.ci_high - boot.ci_low, rel=0.2)


def test_a_pilot_with_too_few_rated_items_is_refused():
    with pytest.raises(InputError, match="pilot tiny: 1 items"):
        read_pilot(_pilot_with_sds([1.0]), "tiny")


def test_plan_prints_each_target_with_raters_judgments_and_cost(tmp_path):
    plot = tmp_path / "plan.png"
    result = CliRunner().invoke(
        main, ["plan", SPEC, "--pilot", "ws353", "--item-se", "0.5", "--plot", str(plot)]
    )
    assert result.exit_code == 0, result.output
    assert "pilot WS353: alpha 0.590, 13.0 raters per item" in result.output
    assert "item mean se (100% of items) <= 0.5 (now 0.892): 42 raters per item" in result.output
    assert plot.stat().st_size > 0


def test_plan_json_holds_every_target():
    result = CliRunner().invoke(main, ["plan", SPEC, "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert [t["target"] for t in figures["targets"]] == [
        "item mean se (100% of items)",
        "resolution",
        "alpha interval width",
    ]
    assert all(t["raters_per_item"] >= 1 for t in figures["targets"])
    assert figures["pilot_alpha"] == pytest.approx(0.590, abs=0.001)


def test_plan_names_a_missing_pilot_file():
    result = CliRunner().invoke(main, ["plan", SPEC, "--pilot", "nowhere/pilot.csv"])
    assert result.exit_code != 0
    assert "nowhere/pilot.csv: no such file" in result.output


def test_power_to_tell_two_systems_apart_matches_the_tests_own_monte_carlo():
    from harness.stats.calibration import rejection_rates
    from harness.stats.spearman_difference import difference_power

    simulated = rejection_rates(353, 0.7, 0.9, difference=0.04, samples=2000, seed=1)
    assert difference_power(353, 0.7, 0.74, 0.9) == pytest.approx(
        simulated.rates["spearman"], abs=0.05
    )
    assert difference_power(353, 0.7, 0.7, 0.9) == pytest.approx(0.05)


def test_fewer_raters_lower_the_power_as_the_item_means_get_noisier():
    from harness.characterize.planning import Systems, systems_power

    pilot = read_pilot(read_instrument("ws353", None).judgments, "ws353")
    pair = Systems(("a", "b"), 0.70, 0.76, 0.85)
    assert systems_power(pilot, pair, 3, 353) < systems_power(pilot, pair, 13, 353)
    assert systems_power(pilot, pair, 13, 353) < systems_power(pilot, pair, 13, 700)


def test_plan_for_two_bundled_systems_says_how_many_items_would_tell_them_apart():
    result = CliRunner().invoke(
        main, ["plan", SPEC, "--systems", "minilm", "minilm_frame", "--difference", "0.04"]
    )
    assert result.exit_code == 0, result.output
    line = result.output.splitlines()[-1]
    assert line.startswith("  power to tell minilm from minilm_frame (rho 0.729 vs 0.769) >= 0.8")
    assert "more raters cannot get there with 353 items" in line
    assert "items at 13 raters each would" in line


def test_a_difference_the_systems_cannot_have_is_said_plainly():
    result = CliRunner().invoke(
        main, ["plan", SPEC, "--systems", "minilm", "char3gram", "--difference", "0.05", "--json"]
    )
    assert result.exit_code == 0, result.output
    power = json.loads(result.output)["targets"][-1]
    assert power["raters_per_item"] is None and power["at_13_raters"] is None
    assert "ask for a smaller difference" in power["note"]
