"""Benchmark: who H11-H13 flag in crowds with machine workers, beside H1-H10.

Run from the project root:

    python scripts/bench_machine_screening.py [--seeds 5]

Crowds simulated from the WS353 item means (the bundled copy) on the ws353_reproduction scale
(0-10, step 1): 60 workers, 13 raters per item, 30 items per HIT, 10% and 30% machine workers
(`harness.simulate.mixes.MACHINE_MIXES`), seeds 1..N. The model-assisted workers answer one
bundled system (rescaled, `harness.simulate.machine`; each of the three in turn, char3gram as
a stress test: a system that knows no meaning); H11 is given the other two, never that one.
Screened under task_specs/ws353_reproduction.yaml's policy plus H11, H12 and H13 blocking.
Printed per held-out system and mix: per true archetype the workers flagged under the policy
(counts), the share flagged, and the share each heuristic flags; then the recall on machine
workers and the share of careful workers flagged.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from harness.datasets import load_ws353
from harness.datasets.systems import read_system_refs
from harness.screening import ScreeningContext
from harness.simulate.machine_crowds import HeldOut, machine_flags
from harness.simulate.mixes import MACHINE_MIXES
from harness.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "task_specs" / "ws353_reproduction.yaml"
SHOWN = [
    "quick",
    "low_variance",
    "low_correlation",
    "consensus_correlation",
    "machine_agreement",
    "hidden_answers",
    "steady_timing",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    seeds = range(1, parser.parse_args().seeds + 1)
    ws353 = load_ws353()
    truths = ws353.judgments.groupby("item_id")["value"].mean()
    systems, _ = read_system_refs(["ws353"], lambda: ws353.items)
    context = ScreeningContext.from_spec(load_spec(SPEC))
    for used in ("minilm", "minilm_frame", "char3gram"):
        held_out = HeldOut(used, systems)
        for name, mix in MACHINE_MIXES.items():
            every = pd.concat(machine_flags(truths, context, mix, held_out, seed=s) for s in seeds)
            counts = pd.crosstab(
                every["archetype"], every["flagged"].map({True: "removed", False: "kept"})
            )
            rates = every.groupby("archetype")[["flagged", *SHOWN]].mean()
            machines = every[every["archetype"].isin(["model_assisted", "bot"])]
            careful = every[every["archetype"] == "careful"]
            print(
                f"\n== {name}, seeds {seeds.start}-{seeds.stop - 1}; model-assisted workers "
                f"use {used}, H11 is given {', '.join(held_out.references)} =="
            )
            with pd.option_context("display.width", 250, "display.max_columns", None):
                print(
                    pd.concat([counts, rates], axis=1).to_string(float_format=lambda v: f"{v:.2f}")
                )
            caught, spared = int(machines["flagged"].sum()), int(careful["flagged"].sum())
            print(
                f"recall on machine workers {machines['flagged'].mean():.2f} ({caught} of "
                f"{len(machines)}); careful flagged {careful['flagged'].mean():.1%} ({spared} of "
                f"{len(careful)})"
            )
            scores = every.groupby("archetype")[["score:machine_agreement", "score:steady_timing"]]
            print("scores (min, max):")
            print(scores.agg(["min", "max"]).to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
