"""Time each characterization step on big synthetic studies, with the ratio between sizes.

    .venv/bin/python scripts/bench_characterize.py [--judgments 100000 1000000] [--raters 50]

Each size is a study of judgments / raters items, every item rated by ``raters`` workers out
of a pool of 4 x raters, values = a latent truth (uniform on 0-10) + noise (sd 1.2), clipped;
the "original" is a second draw of the same kind, and two systems score truth + noise. The
ratio column compares each step with the same step at the first (reference) size: about the
size ratio for steps linear in judgments (every step: rank stability by standard error and the
distance correlation over item pairs count pairs through sorted means, O(n log^2 n) in items).
`scripts/bench_scale.py` times them against their quadratic definitions.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from harness.characterize import precision, rank_stability_se, repeatability, reproducibility
from harness.characterize.systems import instrument_systems


def study(n_items: int, raters: int, truth: np.ndarray, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    pool = 4 * raters
    workers = np.stack([rng.choice(pool, raters, replace=False) for _ in range(n_items)])
    values = np.clip(truth[:, None] + rng.normal(0, 1.2, (n_items, raters)), 0, 10)
    return pd.DataFrame(
        {
            "item_id": np.repeat([f"i{k:06d}" for k in range(n_items)], raters),
            "worker_id": [f"w{w:04d}" for w in workers.ravel()],
            "value": values.ravel().round(2),
        }
    )


def timed(step: Callable[[], Any]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--bootstrap", type=int, default=200)
    args = parser.parse_args()
    results: dict[int, dict[str, float]] = {}
    for size in args.judgments:
        n_items = size // args.raters
        rng = np.random.default_rng(size)
        truth = rng.uniform(0, 10, n_items)
        new, original = study(n_items, args.raters, truth, 1), study(n_items, args.raters, truth, 2)
        index = pd.Index(sorted(new["item_id"].unique()))
        scores = {
            f"s{k}": pd.Series(truth + rng.normal(0, 1.5 + k, n_items), index=index)
            for k in range(2)
        }
        p = precision(new)
        results[size] = {
            "precision": timed(lambda new=new: precision(new)),
            "repeatability": timed(
                lambda new=new: repeatability(new, resamples=args.bootstrap, seed=0)
            ),
            "rank stability (se)": timed(lambda p=p: rank_stability_se(p.summaries)),
            "reproducibility": timed(
                lambda new=new, original=original: reproducibility(
                    new, original, resamples=args.bootstrap
                )
            ),
            "systems": timed(lambda new=new, scores=scores: instrument_systems(new, scores)),
        }
        print(f"{size:,} judgments ({n_items:,} items x {args.raters} raters) done", flush=True)
    reference = args.judgments[0]
    print(f"\n{'step':<22}" + "".join(f"{s:>14,}" for s in args.judgments) + "   ratio to first")
    for step in results[reference]:
        times = [results[s][step] for s in args.judgments]
        ratios = ", ".join(f"{t / times[0]:.1f}x" for t in times[1:])
        print(f"{step:<22}" + "".join(f"{t:>13.2f}s" for t in times) + f"   {ratios}")


if __name__ == "__main__":
    main()
