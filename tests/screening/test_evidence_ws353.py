"""Evidence that the default policy separates bad workers from careful ones on WS353.

Crowds are simulated from the WS353 item means (the original instrument's latent truths) on the
ws353_reproduction scale (0-10, step 1): 60 workers, 13 raters per item, 30 items per HIT, with
20-40% spammers, straight-liners and backwards workers (plus sloppy ones, who are neither
targets nor counted as careful), seeds 1-5. "The default policy" is the screening policy of
task_specs/ws353_reproduction.yaml, read from the spec: H3 low_variance (relative, 0.25) + H7
low_correlation (0.3) + H8 consensus_correlation (0.3) at catalogue thresholds, set to `block`
(H2 quick and H10 calibration_failure only report). Required: recall >= 0.9 on each bad
archetype, <= 5% of careful workers flagged.
"""

from __future__ import annotations

import pandas as pd
import pytest

from harness.datasets import load_ws353
from harness.screening import ScreeningContext, screen_workers
from harness.simulate import Crowd, simulate_judgments
from harness.simulate.mixes import SCREENING_MIXES
from harness.spec import load_spec
from harness.spec.model import Action
from tests.factories import TASK_SPECS

MIXES = SCREENING_MIXES
SEEDS = (1, 2, 3, 4, 5)


def _flag_rates(ws353_dir, mix: dict[str, float]) -> pd.Series:
    truths = load_ws353(ws353_dir).judgments.groupby("item_id")["value"].mean()
    loaded = load_spec(TASK_SPECS / "ws353_reproduction.yaml")
    context = ScreeningContext.from_spec(loaded)
    acting = {k for k in context.policy if context.action(k) is not Action.REPORT}
    assert acting == {"low_variance", "low_correlation", "consensus_correlation"}
    rates = []
    for seed in SEEDS:
        crowd = Crowd(mix, size=60, seed=seed)
        table = simulate_judgments(truths, loaded.scale, crowd, 13, 30, seed=seed)
        truth = table.groupby("worker_id")["true_archetype"].first()
        flagged = screen_workers(table.drop(columns="true_archetype"), context).flagged
        rates.append(pd.DataFrame({"archetype": truth, "flagged": flagged}))
    return pd.concat(rates).groupby("archetype")["flagged"].mean()


@pytest.mark.slow
@pytest.mark.parametrize("mix", list(MIXES))
def test_default_policy_catches_bad_workers_and_spares_careful_ones(ws353_dir, mix):
    rates = _flag_rates(ws353_dir, MIXES[mix])
    for bad in ("spammer", "straight_liner", "backwards"):
        assert rates[bad] >= 0.9, f"{mix}: recall on {bad} is {rates[bad]:.2f}"
    assert rates["careful"] <= 0.05, f"{mix}: {rates['careful']:.1%} of careful workers flagged"
