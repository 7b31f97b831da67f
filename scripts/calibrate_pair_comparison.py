"""Calibrate the simulated pair comparison on WS353 and print the figures it reproduces.

    python scripts/calibrate_pair_comparison.py [--seeds 5]

1. The perception noise: WS353's per-item spread, the mean sample sd of each pair's votes in
   the instrument the WS353 study characterized (raters 1-13 on all 353 pairs; harness's
   bundled copy).
2. The indifference band: with that noise, the band centre (raters' bands spread +-30% around
   it) at which a careful crowd of 13 raters per pair of pairs, over pairs of pairs drawn at
   random from WS353's item pairs, decides 25% "equally similar" (the published figure with no
   threshold), found by bisection on the exact expected decisions
   (`harness.simulate.perception.expected_decisions`).
3. What the calibrated crowd then gives: the expected cumulative resolution over random pairs
   of pairs (the published figure is 1.8; the band was not fitted to it), the same on the
   shipped uniform design (task_specs/ws353_resolution.yaml), and simulated careful crowds on
   that design (``--seeds`` of them) against their expectation.
The constants in harness/simulate/perception.py are the rounded results of this script.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from harness.characterize import resolution
from harness.datasets.ws353 import load_ws353
from harness.simulate import Crowd
from harness.simulate.perception import (
    BAND,
    PERCEPTION,
    band_range,
    expected_decisions,
    expected_resolution,
)
from harness.simulate.studies import simulate_spec_study
from harness.spec import load_spec

RATERS = 13  # raters per pair of pairs, and the WS353 study's raters (1-13)
TARGET_EQUAL = 0.25
LATENT_RANGE = 10.0
SPEC = Path(__file__).resolve().parents[1] / "task_specs" / "ws353_resolution.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="simulated careful crowds")
    args = parser.parse_args()

    ws = load_ws353()
    rater = ws.judgments["worker_id"].str.removeprefix("ws353-r").astype(int)
    votes = ws.judgments[rater <= RATERS].groupby("item_id")["value"]
    item_sd = float(votes.std(ddof=1).mean())
    means = votes.mean().to_numpy()
    first, second = np.triu_indices(len(means), k=1)
    natural = np.abs(means[first] - means[second])
    print(
        f"WS353, raters 1-13: {len(means)} items, {len(natural):,} item pairs; mean per-item sd "
        f"(sample) {item_sd:.3f}, (population) {float(votes.std(ddof=0).mean()):.3f}"
    )

    perception = item_sd

    def equal_share(centre: float) -> float:
        band = band_range(centre)
        return float(expected_decisions(natural, perception, band, RATERS).equal.mean())

    low, high = 0.0, 5.0
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if equal_share(mid) < TARGET_EQUAL else (low, mid)
    centre = (low + high) / 2
    print(
        f"calibrated: perception sd {perception:.3f}, band centre {centre:.3f} "
        f"(raters {band_range(centre)[0]:.2f}-{band_range(centre)[1]:.2f}) on 0-10"
    )
    print(
        f"harness uses: perception {PERCEPTION * LATENT_RANGE:.2f}, band centre "
        f"{BAND * LATENT_RANGE:.2f}"
    )

    shipped_perception, shipped_band = PERCEPTION * LATENT_RANGE, band_range(BAND * LATENT_RANGE)
    exp = expected_decisions(natural, shipped_perception, shipped_band, RATERS)
    t_natural = expected_resolution(natural, exp.agree)
    print(
        "careful crowd, 13 raters, pairs of pairs drawn at random from WS353's item pairs "
        "(expected):"
    )
    print(f"  'equally similar' with no threshold: {exp.equal.mean():.1%} (published 25%)")
    print(
        f"  agreement with no threshold: {exp.agree.mean():.1%}; reversed: "
        f"{exp.reversed.mean():.1%}"
    )
    print(f"  resolution (95% cumulative agreement): {t_natural} (published 1.8)")
    grid = np.arange(0.0, 10.0, 0.01)
    single = expected_decisions(grid, shipped_perception, shipped_band, RATERS).agree
    print(
        f"  a single pair of pairs is ordered like the original 95% of the time from a "
        f"distance of {grid[np.argmax(single >= 0.95)]:.2f} (any design)"
    )

    loaded = load_spec(SPEC)
    design = loaded.items
    d = design["distance"].to_numpy(dtype=float)
    exp_u = expected_decisions(d, shipped_perception, shipped_band, RATERS)
    print(
        f"the shipped design ({SPEC.name}, {len(d)} pairs of pairs uniform in distance, expected):"
    )
    print(
        f"  agreement with no threshold {exp_u.agree.mean():.1%}, 'equally similar' "
        f"{exp_u.equal.mean():.1%}, resolution {expected_resolution(d, exp_u.agree)}"
    )
    original = votes.mean()
    found = []
    for seed in range(args.seeds):
        table = simulate_spec_study(loaded, Crowd({"careful": 1.0}, size=30, seed=seed), seed=seed)
        res = resolution(table, original)
        equal = float((res.decisions["decision"] == 0).mean())
        found.append((res.agreement_all, equal, res.threshold_95))
        fitted = res.psychometric
        print(
            f"  simulated careful crowd, seed {seed}: agreement {res.agreement_all:.1%}, "
            f"'equally similar' {equal:.1%}, resolution {res.threshold_95}; fitted curve "
            f"at 95%: {'no fit' if fitted is None else f'{fitted.d_target:.2f}'}"
        )
    if found:
        agree, equal, ts = zip(*found, strict=True)
        reached = [t for t in ts if t is not None]
        print(
            f"  mean of {len(found)} crowds: agreement {np.mean(agree):.1%}, 'equally "
            f"similar' {np.mean(equal):.1%}, resolution {np.mean(reached):.2f} "
            f"({len(reached)} of {len(found)} reached)"
        )


if __name__ == "__main__":
    main()
