"""Write a simulated WS353 reproduction, a resolution study and its screening, for a demo report.

    .venv/bin/python scripts/simulate_ws353_studies.py --out demo
    .venv/bin/harness characterize --new demo/reproduction.csv --original ws353 \
        --resolution demo/resolution.csv --system ws353 \
        --flagged demo/flagged.txt --screening-policy ws353_reproduction.yaml --out demo/report

The reproduction answers from the WS353 item means (task_specs/ws353_reproduction.yaml: 13
raters per item, 30 items per HIT) with a crowd of 60 that includes spammers, straight-liners
and backwards workers; the resolution study is task_specs/ws353_resolution.yaml (200 pairs of
pairs from the pairs_of_pairs generator, 13 raters each); flagged.txt lists the workers the
reproduction spec's screening policy flags. Seeded: the same seed writes the same files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.datasets import load_ws353
from harness.judgments import write_judgments
from harness.screening import ScreeningContext, screen_workers
from harness.simulate import Crowd
from harness.simulate.studies import simulate_spec_study
from harness.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
REPRODUCTION_MIX = {
    "careful": 0.7,
    "sloppy": 0.1,
    "spammer": 0.1,
    "straight_liner": 0.05,
    "backwards": 0.05,
}
RESOLUTION_MIX = {"careful": 0.7, "sloppy": 0.2, "spammer": 0.1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for the CSV files")
    parser.add_argument("--ws353", default=None, help="WS353 directory (default: as harness)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    truths = load_ws353(args.ws353).judgments.groupby("item_id")["value"].mean()
    spec = load_spec(ROOT / "task_specs" / "ws353_reproduction.yaml")
    reproduction = simulate_spec_study(
        spec, Crowd(REPRODUCTION_MIX, size=60, seed=args.seed), truths=truths, seed=args.seed
    ).drop(columns="true_archetype")
    write_judgments(reproduction, args.out / "reproduction.csv")
    resolution_spec = load_spec(ROOT / "task_specs" / "ws353_resolution.yaml")
    resolution = simulate_spec_study(
        resolution_spec, Crowd(RESOLUTION_MIX, size=40, seed=args.seed + 1), seed=args.seed + 1
    ).drop(columns="true_archetype")
    write_judgments(resolution, args.out / "resolution.csv")
    report = screen_workers(reproduction, ScreeningContext.from_spec(spec))
    flagged = sorted(report.flagged[report.flagged].index)
    (args.out / "flagged.txt").write_text("".join(f"{w}\n" for w in flagged), encoding="utf-8")
    print(
        f"Wrote {args.out}/reproduction.csv ({len(reproduction):,} judgments), "
        f"resolution.csv ({len(resolution):,}), flagged.txt ({len(flagged)} workers)"
    )


if __name__ == "__main__":
    main()
