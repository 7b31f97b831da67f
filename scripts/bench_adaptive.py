"""Adaptive against fixed collection on simulated WS353 crowds (docs/methods.md, "Adaptive
collection"): judgments to reach the fixed design's worst-item precision, and what the item
means, alpha and Spearman's rho with WS353 come to at the end.

    .venv/bin/python scripts/bench_adaptive.py [--seeds 20] [--raters 13] [--floor 5] [--sure 0.9]

The simulated items have WS353's item means and sds (raters 1-13). The fixed design asks every
item of --raters raters; the adaptive one gets as its target the fixed design's worst true
95% half-width of an item mean, and asks --per-assignment items an assignment. Goal: at least
25% fewer judgments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.characterize.inputs import read_instrument  # noqa: E402
from harness.simulate.adaptive import Truth, collect_adaptive, collect_fixed  # noqa: E402
from harness.stats.sequential import Rule  # noqa: E402

GOAL = 0.25


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--raters", type=int, default=13)
    parser.add_argument("--floor", type=int, default=5)
    parser.add_argument("--cap", type=int, default=40)
    parser.add_argument("--per-assignment", type=int, default=30)
    parser.add_argument("--sure", type=float, default=0.9)
    parser.add_argument("--prior", type=float, default=10.0)
    args = parser.parse_args()

    pilot = read_instrument("ws353", None).judgments
    truth = Truth.of_pilot(pilot)
    reference = pilot.groupby("item_id")["value"].mean().reindex(truth.items).to_numpy()
    target = float(np.max(1.959963984540054 * truth.sds / np.sqrt(args.raters)))
    rule = Rule(half_width=target, floor=args.floor, cap=args.cap, sure=args.sure, prior=args.prior)
    print(
        f"{len(truth.items)} items with WS353's means and sds (mean sd {truth.sds.mean():.2f}, "
        f"max {truth.sds.max():.2f}); fixed {args.raters} raters; adaptive target half-width "
        f"{target:.3f} (the fixed design's worst item), floor {args.floor}, cap {args.cap}, "
        f"{args.per_assignment} items an assignment; {args.seeds} seeds"
    )
    rows = {"fixed": [], "adaptive": []}
    for seed in range(1, args.seeds + 1):
        rows["fixed"].append(collect_fixed(truth, args.raters, seed, reference))
        rows["adaptive"].append(collect_adaptive(truth, rule, args.per_assignment, seed, reference))
    print(
        f"{'design':9} {'judgments':>9} {'worst hw':>9} {'mean err var':>12} {'rho ws353':>9} "
        f"{'alpha':>6} {'mean bias':>9} {'sd bias':>8}"
    )
    figures = {}
    for name, runs in rows.items():
        f = {
            key: np.array([getattr(r, key) for r in runs])
            for key in (
                "judgments",
                "worst_half_width",
                "half_width_99",
                "mean_error_variance",
                "rho_reference",
                "alpha",
                "mean_bias",
                "sd_bias",
            )
        }
        figures[name] = f
        print(
            f"{name:9} {f['judgments'].mean():9.0f} {f['worst_half_width'].mean():9.3f} "
            f"{f['mean_error_variance'].mean():12.3f} {f['rho_reference'].mean():9.4f} "
            f"{f['alpha'].mean():6.3f} {f['mean_bias'].mean():+9.4f} {f['sd_bias'].mean():+8.4f}"
        )
    saved = 1 - figures["adaptive"]["judgments"] / figures["fixed"]["judgments"]
    drho = figures["adaptive"]["rho_reference"] - figures["fixed"]["rho_reference"]
    dalpha = figures["adaptive"]["alpha"] - figures["fixed"]["alpha"]
    print(
        f"judgments saved: {saved.mean():.1%} (min {saved.min():.1%}, max {saved.max():.1%}; "
        f"goal >= {GOAL:.0%}): {'ok' if saved.min() >= GOAL else 'MISSED'}"
    )
    print(
        f"rho with WS353, adaptive - fixed: {drho.mean():+.4f} "
        f"(5th-95th percentile over seeds {np.percentile(drho, 5):+.4f} .. "
        f"{np.percentile(drho, 95):+.4f})"
    )
    print(f"alpha, adaptive - fixed: {dalpha.mean():+.4f}")
    for name in rows:
        worst, p99 = (figures[name][k] for k in ("worst_half_width", "half_width_99"))
        print(
            f"{name} true half-width of an item mean: worst {worst.mean():.3f} (max over seeds "
            f"{worst.max():.3f}), 99th percentile {p99.mean():.3f}; target {target:.3f}"
        )
    return 0 if saved.min() >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
