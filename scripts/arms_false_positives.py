"""How often `compare_arms` tells simulated arms apart (docs/arms.md, issue #18).

Two studies, each repeated over seeds: arms that do not differ (both arms' raters have the same
noise; every "distinguishable" verdict is a false positive, nominally 1 - confidence), and arms
that do (one arm's raters noisier; the share told apart is the power). Prints both rates with
their binomial standard errors, for the default bootstrap and for items alone, and, for the
arms that do not differ, the spread of the difference of alphas over seeds next to the mean
standard error the bootstrap gave. Bounded: about a second per 5 seeds.

    python scripts/arms_false_positives.py [--seeds 200] [--items 60] [--raters 5] [--bias 0.5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from harness.characterize.arms import compare_arms
from harness.simulate.arms import simulate_arms


def rate(
    noise: dict[str, float],
    seeds: int,
    items: int,
    raters: int,
    resamples: int,
    workers: bool,
    bias: float,
) -> tuple[float, float, float]:
    """The share of seeds whose comparison tells the arms apart; the sd of the difference of
    alphas over seeds; the mean bootstrap standard error of it."""
    told = 0
    differences, errors = [], []
    for seed in range(seeds):
        table = simulate_arms(noise, items=items, raters_per_item=raters, bias_sd=bias, seed=seed)
        result = compare_arms(table, resamples=resamples, seed=seed, reweight_workers=workers)
        told += result.differences[0].distinguishable
        differences.append(result.differences[0].difference)
        errors.append(result.differences[0].se)
    return told / seeds, statistics.stdev(differences), statistics.fmean(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--bias", type=float, default=0.5, help="sd of a worker's bias")
    parser.add_argument("--noise", type=float, default=1.5, help="both arms' noise sd")
    parser.add_argument("--noisier", type=float, default=2.5, help="the noisier arm's noise sd")
    args = parser.parse_args()
    start = time.perf_counter()
    cases = {
        "no difference (false-positive rate, nominal 0.05)": {"a": args.noise, "b": args.noise},
        f"arm b noisier, sd {args.noisier} vs {args.noise} (power)": {
            "a": args.noise,
            "b": args.noisier,
        },
    }
    print(f"{args.seeds} seeds, {args.items} items, {args.raters} raters per item per arm, "
          f"workers' bias sd {args.bias}, {args.resamples} bootstrap resamples, "
          "95% intervals")  # fmt: skip
    for workers, method in ((True, "items jointly, workers reweighted (the default)"),
                            (False, "items jointly only")):  # fmt: skip
        print(f" {method}:")
        for label, noise in cases.items():
            p, spread, mean_se = rate(
                noise, args.seeds, args.items, args.raters, args.resamples, workers, args.bias
            )
            se = math.sqrt(p * (1 - p) / args.seeds)
            print(f"  {label}: {p:.3f} (se {se:.3f}); sd of the difference over seeds "
                  f"{spread:.3f}, mean bootstrap se {mean_se:.3f}")  # fmt: skip
    print(f"  ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
