"""Screening on simulated Likert and pair-comparison crowds: it runs, and catches what it can.

Likert: the 40 statements of task_specs/statements_likert.yaml (36 real, 4 gold), truths drawn
uniformly on 1-5 (gold items: their designated answer), 20 workers, 7 raters per item, 20 items
per HIT. Pair comparison: the 200 pairs of pairs of task_specs/ws353_resolution.yaml, truths the
difference of the two pairs' WS353 means, 60 workers, 13 raters, 20 items per HIT. Both with
30% bad workers (spammers, straight-liners, backwards), seeds 1-5. The rates below are the
ones docs/screening.md reports; each assertion leaves a margin below the measured rate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.screening import ScreeningContext, screen_workers
from harness.simulate import Crowd, control_truths, simulate_judgments
from harness.simulate.mixes import SCREENING_MIXES
from harness.spec import LoadedSpec, load_spec
from tests.factories import TASK_SPECS

MIX = SCREENING_MIXES["30% bad"]
SEEDS = range(1, 6)


def _rates(loaded: LoadedSpec, truths: pd.Series, size: int, raters: int, per_hit: int):
    """Per archetype: the share flagged by each heuristic, and under the policy (``flagged``)."""
    context = ScreeningContext.from_spec(loaded)
    roles = loaded.items.set_index("item_id")["role"]
    parts = []
    for seed in SEEDS:
        crowd = Crowd(MIX, size, seed)
        table = simulate_judgments(truths, loaded.scale, crowd, raters, per_hit, seed, roles=roles)
        report = screen_workers(table.drop(columns="true_archetype"), context)
        flags = pd.DataFrame(
            {key: frame.set_index("worker_id")["flag"] for key, frame in report.results.items()}
        )
        flags["flagged"] = report.flagged
        flags["archetype"] = table.groupby("worker_id")["true_archetype"].first()
        parts.append(flags)
    return pd.concat(parts).groupby("archetype").mean()


@pytest.fixture(scope="module")
def likert():
    loaded = load_spec(TASK_SPECS / "statements_likert.yaml")
    rng = np.random.default_rng(0)
    truths = pd.Series(rng.uniform(1, 5, len(loaded.items)), index=loaded.items["item_id"])
    truths.update(control_truths(loaded.items, loaded.scale))
    return _rates(loaded, truths, 20, 7, 20)


@pytest.fixture(scope="module")
def pairs():
    loaded = load_spec(TASK_SPECS / "ws353_resolution.yaml")
    items = loaded.items
    truths = pd.Series((items["p_mean"] - items["q_mean"]).to_numpy(), index=items["item_id"])
    return _rates(loaded, truths, 60, 13, 20)


@pytest.mark.slow
def test_likert_quick_answers_and_the_consensus_catch_spammers_and_backwards(likert):
    assert likert.loc["spammer", "quick"] == 1.0
    assert likert.loc["straight_liner", "quick"] == 1.0
    assert likert.loc["spammer", "consensus_correlation"] >= 0.8
    assert likert.loc["backwards", "consensus_correlation"] >= 0.9
    assert likert.loc["backwards", "gold_failure"] >= 0.8  # the policy rejects on gold
    assert likert.loc["careful", "flagged"] <= 0.05
    assert likert.loc["careful", ["low_variance", "gold_failure"]].max() <= 0.05


@pytest.mark.slow
def test_pair_comparison_consensus_catches_spammers_and_backwards_and_h3_straight_liners(pairs):
    assert pairs.loc["spammer", "consensus_correlation"] >= 0.9
    assert pairs.loc["backwards", "consensus_correlation"] >= 0.9
    assert pairs.loc["straight_liner", "low_variance"] >= 0.9
    assert pairs.loc["spammer", "quick"] >= 0.9
    protective = ["low_variance", "disagreeable", "low_correlation", "consensus_correlation"]
    assert pairs.loc["careful", protective].max() <= 0.05
    assert pairs["flagged"].max() == 0.0  # the shipped policy only reports
