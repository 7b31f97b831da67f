"""How often `compare_arms` tells simulated arms apart (docs/arms.md, issue #18).

Studies of two arms (`harness.simulate.arms`), each repeated over seeds: arms that do not differ
(both arms' raters have the same noise, so every "distinguishable" verdict is a false positive,
nominally 1 - confidence), and arms that do (arm b's raters noisier; the share told apart is
the power). For each way of making the difference's interval it prints the false-positive rate
and each power with their binomial standard errors; the sd of the difference over seeds next
to the mean standard error the method reported; how often the interval covers the mean
difference over seeds (a stand-in for the true difference); and the seconds one comparison
takes. ``--check-raters`` then tests the "raters per item needed" figure of the first method:
it runs each noisier case again at the raters per item the figure asks for (from the mean
difference and the median standard error over seeds) and prints the power reached, which
should be near ``--power``.

    python scripts/arms_false_positives.py [--seeds 400] [--jobs 2] [--bias 0.5]
        [--items-per-hit 20 | 20,10] [--noisier 2.5 1.8] [--difference relabel items]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from harness.characterize.arms import DifferenceMethod, compare_arms, raters_needed
from harness.simulate.arms import simulate_arms


@dataclass(frozen=True)
class Case:
    noise: dict[str, float]
    items: int
    raters: int | dict[str, int]
    items_per_hit: int | dict[str, int]
    bias: float
    method: DifferenceMethod
    resamples: int
    relabelings: int
    confidence: float
    power: float


@dataclass(frozen=True)
class Outcome:
    told: bool
    difference: float
    low: float
    high: float
    se: float
    seconds: float


def one_seed(case: Case, seed: int) -> Outcome:
    table = simulate_arms(
        case.noise,
        items=case.items,
        raters_per_item=case.raters,
        items_per_hit=case.items_per_hit,
        bias_sd=case.bias,
        seed=seed,
    )
    start = time.perf_counter()
    result = compare_arms(
        table,
        resamples=case.resamples,
        seed=seed,
        difference=case.method,
        relabelings=case.relabelings,
        confidence=case.confidence,
        power=case.power,
    )
    seconds = time.perf_counter() - start
    (d,) = result.differences
    return Outcome(d.distinguishable, d.difference, d.ci_low, d.ci_high, d.se, seconds)


def run(case: Case, seeds: int, pool: ProcessPoolExecutor | None) -> list[Outcome]:
    cases = [case] * seeds
    if pool is None:
        return list(map(one_seed, cases, range(seeds)))
    return list(pool.map(one_seed, cases, range(seeds), chunksize=8))


def rate(flags: list[bool]) -> str:
    p = sum(flags) / len(flags)
    return f"{p:.3f} (se {math.sqrt(p * (1 - p) / len(flags)):.3f})"


def describe(outcomes: list[Outcome]) -> str:
    """Rate told apart, spread of the difference, mean reported se, coverage of the mean."""
    differences = [o.difference for o in outcomes]
    centre = statistics.fmean(differences)
    covered = [o.low <= centre <= o.high for o in outcomes]
    mean_se = statistics.fmean(o.se for o in outcomes)
    return (
        f"{rate([o.told for o in outcomes])}; mean difference {centre:+.3f}, its sd over seeds "
        f"{statistics.stdev(differences):.3f}, mean se {mean_se:.3f}; "
        f"interval covers the mean difference {sum(covered) / len(covered):.3f}; "
        f"{statistics.fmean(o.seconds for o in outcomes):.2f} s per comparison"
    )


def per_arm(text: str, cast: type) -> object:
    """``20`` for both arms, or ``20,10`` for arms a and b."""
    parts = [cast(p) for p in text.split(",")]
    if len(parts) == 1:
        return parts[0]
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text}: one number, or two (arm a, arm b)")
    return {"a": parts[0], "b": parts[1]}


def case(
    args: argparse.Namespace, method: DifferenceMethod, noisier: float, raters: int | None = None
) -> Case:
    """The study of the command line with arm b's noise sd ``noisier`` (and ``raters``)."""
    return Case(
        {"a": args.noise, "b": noisier},
        args.items,
        args.raters if raters is None else raters,
        args.items_per_hit,
        args.bias,
        method,
        args.resamples,
        args.relabelings,
        args.confidence,
        args.power,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=1,
        help="processes running the seeds (at most 2)",
    )
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument(
        "--raters",
        type=lambda t: per_arm(t, int),
        default=5,
        help="raters per item per arm: 5, or 5,7 for arms a and b",
    )
    parser.add_argument(
        "--items-per-hit",
        type=lambda t: per_arm(t, int),
        default=20,
        help="items per HIT: 20, or 20,10 for arms a and b",
    )
    parser.add_argument("--bias", type=float, default=0.5, help="sd of a worker's bias")
    parser.add_argument("--noise", type=float, default=1.5, help="both arms' noise sd")
    parser.add_argument(
        "--noisier",
        type=float,
        nargs="+",
        default=[2.5, 1.8],
        help="the noisier arm b's noise sd, one power case each",
    )
    parser.add_argument(
        "--difference",
        nargs="+",
        default=["relabel", "items", "items-workers"],
        choices=[m.value for m in DifferenceMethod],
    )
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--relabelings", type=int, default=1000)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--power", type=float, default=0.8)
    parser.add_argument(
        "--check-raters", action="store_true", help="run each noisier case at the raters needed"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    print(
        f"{args.seeds} seeds, {args.items} items, {args.raters} raters per item per arm, "
        f"{args.items_per_hit} items per HIT, workers' bias sd {args.bias}, noise sd "
        f"{args.noise}; {args.resamples} resamples, {args.relabelings} relabelings, "
        f"{args.confidence:.0%} intervals"
    )
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for name in args.difference:
            method = DifferenceMethod(name)
            print(f" {name}:")
            null = run(case(args, method, args.noise), args.seeds, pool)
            print(
                f"  no difference (false positives, nominal {1 - args.confidence:.2f}): "
                f"{describe(null)}"
            )
            for noisier in args.noisier:
                outcomes = run(case(args, method, noisier), args.seeds, pool)
                print(
                    f"  arm b noisier, sd {noisier} vs {args.noise} (power): {describe(outcomes)}"
                )
                if args.check_raters and name == args.difference[0]:
                    r = args.raters
                    mean_r = r if isinstance(r, int) else statistics.fmean(r.values())
                    centre = statistics.fmean(o.difference for o in outcomes)
                    se = statistics.median(o.se for o in outcomes)
                    needed = raters_needed(centre, se, mean_r, args.confidence, args.power)
                    if needed is None:
                        print("   raters per item needed: beyond any study")
                        continue
                    again = run(case(args, method, noisier, needed), args.seeds, pool)
                    print(
                        f"   raters per item needed at difference {centre:+.3f}, median se "
                        f"{se:.3f}: {needed}; at {needed} raters per item: "
                        f"{describe(again)}"
                    )
    finally:
        if pool is not None:
            pool.shutdown()
    print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
