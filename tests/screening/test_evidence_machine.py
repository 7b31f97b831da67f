"""Evidence that H11-H13 catch machine workers and spare careful ones on WS353.

Crowds as in test_evidence_ws353.py (WS353 item means, 0-10 step 1, 60 workers, 13 raters per
item, 30 items per HIT, seeds 1-5) with 10% or 30% machine workers (`MACHINE_MIXES`): the
model-assisted workers answer one bundled system, and H11 is given the other two, never the
one they used. Policy: task_specs/ws353_reproduction.yaml's, plus H11, H12 and H13 blocking.
Required by issue #37: recall >= 0.9 on machine workers, <= 1% of careful workers flagged.
"""

from __future__ import annotations

import pandas as pd
import pytest

from harness.datasets import load_ws353
from harness.datasets.systems import read_system_refs
from harness.screening import ScreeningContext
from harness.simulate.machine_crowds import HeldOut, machine_flags
from harness.simulate.mixes import MACHINE_MIXES
from harness.spec import load_spec
from tests.factories import TASK_SPECS

SEEDS = (1, 2, 3, 4, 5)


def _flags(ws353_dir, mix: str, used: str) -> pd.DataFrame:
    ws353 = load_ws353(ws353_dir)
    truths = ws353.judgments.groupby("item_id")["value"].mean()
    systems, _ = read_system_refs(["ws353"], lambda: ws353.items)
    context = ScreeningContext.from_spec(load_spec(TASK_SPECS / "ws353_reproduction.yaml"))
    held_out = HeldOut(used, systems)
    assert used not in held_out.references
    return pd.concat(
        machine_flags(truths, context, MACHINE_MIXES[mix], held_out, seed=seed) for seed in SEEDS
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mix", "used"), [("10% machine", "minilm"), ("30% machine", "minilm_frame")]
)
def test_machine_workers_are_caught_and_careful_ones_spared_with_a_model_not_given(
    ws353_dir, mix, used
):
    flags = _flags(ws353_dir, mix, used)
    rates = flags.groupby("archetype")["flagged"].mean()
    machines = flags[flags["archetype"].isin(["model_assisted", "bot"])]
    assert machines["flagged"].mean() >= 0.9, f"{mix}: recall {machines['flagged'].mean():.2f}"
    assert rates["careful"] <= 0.01, f"{mix}: {rates['careful']:.1%} of careful workers flagged"
    # the model-assisted workers pass the heuristics made for careless people: H11 finds them
    assisted = flags[flags["archetype"] == "model_assisted"]
    assert not assisted[["low_variance", "low_correlation", "consensus_correlation"]].any().any()
    assert assisted["machine_agreement"].mean() >= 0.9
