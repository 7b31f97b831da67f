"""Size and power of the tests that compare two systems on one instrument (methods.md).

    python scripts/calibrate_comparisons.py [--samples 2000] [--seed 0]

For each n, rho and r_AB of the grid (cells no three normal variables can have are left out),
`harness.stats.calibration.rejection_rates` draws ``--samples`` samples under H0 (both
systems at rho) and prints the share rejected at p0 = 0.05 by harness's Spearman test, by
Steiger's test applied to the same Spearman rhos, and by Steiger's test on Pearson's r; then
the Spearman test's power when system B correlates 0.05 more with the instrument. With 2,000
samples a rate's standard error is about 0.005 at 5%. Prints a Markdown table of every cell,
then one row per n (the range over rho and r_AB, as methods.md shows it), then the range of
each test's size over the grid and the cells outside 4-6%.
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
    powers: list[tuple[int, float]] = []
    outside: list[str] = []
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
                    powers.append((n, alt.rates["spearman"]))
                if not 0.04 <= null.rates["spearman"] <= 0.06:
                    outside.append(f"n {n}, rho {rho}, r_AB {r_ab}: {null.rates['spearman']:.3f}")
                rates = " | ".join(f"{null.rates[t]:.3f}" for t in TESTS)
                print(f"| {n} | {rho} | {r_ab} | {rates} | {power} |", flush=True)
    print()
    print(
        "| n | size: Spearman test | Steiger on Spearman | Steiger on Pearson "
        f"| power at +{POWER_DIFFERENCE} |"
    )
    print("| --- | --- | --- | --- | --- |")
    for n in NS:
        cells = [_span([r for m, r in sizes[t] if m == n]) for t in TESTS]
        print(f"| {n} | {' | '.join(cells)} | {_span([r for m, r in powers if m == n])} |")
    print()
    for t in TESTS:
        print(f"{t}: size {_span([r for _, r in sizes[t]])} over the grid")
    print(f"Spearman test outside 4-6%: {len(outside)} of {len(sizes['spearman'])} cells")
    for line in outside:
        print(f"  {line}")


def _span(rates: list[float]) -> str:
    return f"{min(rates):.3f}-{max(rates):.3f}" if rates else "n/a"


if __name__ == "__main__":
    main()
