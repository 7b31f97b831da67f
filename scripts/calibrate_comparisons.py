"""Size and power of the tests that compare two systems on one instrument (methods.md).

    python scripts/calibrate_comparisons.py [--samples 2000] [--seed 0]

For each n, rho and r_AB of the grid (cells no three normal variables can have are left out),
`harness.stats.calibration.rejection_rates` draws ``--samples`` samples under H0 (both
systems at rho) and prints the share rejected at p0 = 0.05 by harness's Spearman test, by
Steiger's test applied to the same Spearman rhos, and by Steiger's test on Pearson's r; then
the Spearman test's power when system B correlates 0.05 more with the instrument. With 2,000
samples a rate's standard error is about 0.005 at 5%. Prints a Markdown table, then the
range of each test's size over the grid and over n >= 100.
"""

from __future__ import annotations

import argparse

from harness.stats.calibration import TESTS, feasible, rejection_rates

NS = (50, 100, 200, 353, 1000, 2000)
RHOS = (0.3, 0.5, 0.7, 0.9)
R_ABS = (0.3, 0.5, 0.7, 0.9, 0.95)
POWER_DIFFERENCE = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        "| n | rho | r_AB | size: Spearman test | Steiger on Spearman | Steiger on Pearson "
        f"| power at +{POWER_DIFFERENCE} |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    sizes: dict[str, list[tuple[int, float]]] = {t: [] for t in TESTS}
    seed = args.seed
    for n in NS:
        for rho in RHOS:
            for r_ab in R_ABS:
                if not feasible(rho, r_ab):
                    continue
                seed += 1
                null = rejection_rates(n, rho, r_ab, samples=args.samples, seed=seed)
                for t in TESTS:
                    sizes[t].append((n, null.rates[t]))
                power = "n/a"
                if feasible(rho, r_ab, POWER_DIFFERENCE):
                    seed += 1
                    alt = rejection_rates(
                        n, rho, r_ab, difference=POWER_DIFFERENCE, samples=args.samples, seed=seed
                    )
                    power = f"{alt.rates['spearman']:.3f}"
                rates = " | ".join(f"{null.rates[t]:.3f}" for t in TESTS)
                print(f"| {n} | {rho} | {r_ab} | {rates} | {power} |", flush=True)
    print()
    for t in TESTS:
        every = [r for _, r in sizes[t]]
        large = [r for n, r in sizes[t] if n >= 100]
        print(
            f"{t}: size {min(every):.3f}-{max(every):.3f} over the grid, "
            f"{min(large):.3f}-{max(large):.3f} at n >= 100"
        )


if __name__ == "__main__":
    main()
