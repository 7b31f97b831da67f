"""Simulated WS353 crowds with machine workers, the heuristics given other systems than theirs.

What docs/screening.md's "Machine-made answers" figures and the evidence test
(tests/screening/test_evidence_machine.py) run: a crowd of a `MACHINE_MIXES` mix whose
model-assisted workers answer one bundled system (``used``, rescaled by `machine_answers`),
screened with the other bundled systems as H11's references, never the one used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import pandas as pd

from harness.screening import ScreeningContext, screen_workers
from harness.simulate.crowd import Crowd, simulate_judgments
from harness.simulate.machine import machine_answers
from harness.spec.heuristics import HeuristicKey
from harness.spec.model import Action, HeuristicPolicy

MACHINE_POLICY: dict[str, HeuristicPolicy] = {
    HeuristicKey.MACHINE_AGREEMENT: HeuristicPolicy(action=Action.BLOCK),
    HeuristicKey.HIDDEN_ANSWERS: HeuristicPolicy(action=Action.BLOCK),
    HeuristicKey.STEADY_TIMING: HeuristicPolicy(action=Action.BLOCK),
}
"""What the measured policy adds to a spec's: H11, H12 and H13 block."""


@dataclass(frozen=True)
class HeldOut:
    """Which system the model-assisted workers use; the rest are the heuristics' references."""

    used: str
    systems: Mapping[str, pd.Series]

    @property
    def references(self) -> dict[str, pd.Series]:
        return {k: v for k, v in self.systems.items() if k != self.used}


def machine_flags(
    truths: pd.Series,
    context: ScreeningContext,
    mix: Mapping[str, float],
    held_out: HeldOut,
    *,
    seed: int,
    size: int = 60,
    raters: int = 13,
    per_hit: int = 30,
) -> pd.DataFrame:
    """Per worker: ``archetype``, each heuristic's flag and ``flagged`` under ``context``'s
    policy with `MACHINE_POLICY` added, H11 given the held-out references; the scores of H11
    and H13 as ``score:machine_agreement`` and ``score:steady_timing``."""
    machine = machine_answers(held_out.systems[held_out.used], truths, context.scale)
    crowd = Crowd(mix, size=size, seed=seed)
    table = simulate_judgments(
        truths, context.scale, crowd, raters, per_hit, seed=seed, machine=machine
    )
    screening = replace(
        context,
        policy={**context.policy, **MACHINE_POLICY},
        references=held_out.references,
    )
    report = screen_workers(table.drop(columns="true_archetype"), screening)
    flags = pd.DataFrame({k: f.set_index("worker_id")["flag"] for k, f in report.results.items()})
    flags["flagged"] = report.flagged
    for key in (HeuristicKey.MACHINE_AGREEMENT, HeuristicKey.STEADY_TIMING):
        flags[f"score:{key}"] = report.results[key].set_index("worker_id")["score"]
    flags["archetype"] = table.groupby("worker_id")["true_archetype"].first()
    return flags
