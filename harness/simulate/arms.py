"""A simulated study with arms (issue #18): the same items, each arm's raters with their own
noise, so a comparison of arms can be checked against a known answer.

Each arm cuts the items into HITs of ``items_per_hit`` (one number for every arm, or one per
arm); each HIT gets ``raters_per_item`` new workers of that arm (likewise), so a worker is in one
arm and does one HIT, and an arm with smaller HITs has more workers. A worker answers an item with
``truth + bias + noise`` on the scale, rounded to its step and clipped: the bias is the
worker's (normal, ``bias_sd``), the noise is the arm's (normal, the arm's sd), so an arm with a
larger sd has noisier raters and a lower alpha. The same seed gives the same table.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd


def simulate_arms(
    noise: Mapping[str, float],
    *,
    items: int | Mapping[str, float] = 60,
    raters_per_item: int | Mapping[str, int] = 5,
    items_per_hit: int | Mapping[str, int] = 20,
    bias_sd: float | Mapping[str, float] = 0.5,
    scale: tuple[float, float, float] = (0.0, 10.0, 1.0),
    seed: int = 0,
) -> pd.DataFrame:
    """The long table (``item_id, worker_id, arm, value, seconds``) of a study whose arms
    (name -> noise sd) rate the same items (a count, drawn uniformly on the scale, or item id
    -> truth)."""
    rng = np.random.default_rng(seed)
    low, high, step = scale
    if isinstance(items, int):
        truths = {f"i{k:04d}": float(v) for k, v in enumerate(rng.uniform(low, high, items))}
    else:
        truths = {str(k): float(v) for k, v in items.items()}
    keys = list(truths)
    frames = []
    for arm, sd in noise.items():
        per_hit = items_per_hit if isinstance(items_per_hit, int) else items_per_hit[arm]
        raters = raters_per_item if isinstance(raters_per_item, int) else raters_per_item[arm]
        bias = bias_sd if isinstance(bias_sd, int | float) else bias_sd[arm]
        order = rng.permutation(len(keys))
        for h, start in enumerate(range(0, len(keys), per_hit)):
            hit = [keys[i] for i in order[start : start + per_hit]]
            truth = np.array([truths[k] for k in hit])
            for r in range(raters):
                raw = truth + rng.normal(0, bias) + rng.normal(0, sd, len(hit))
                value = np.clip(np.round((raw - low) / step) * step + low, low, high)
                frames.append(
                    pd.DataFrame(
                        {
                            "item_id": hit,
                            "worker_id": f"{arm}-h{h}-r{r}",
                            "arm": arm,
                            "value": value,
                            "seconds": rng.lognormal(np.log(6.0), 0.4, len(hit)),
                        }
                    )
                )
    return pd.concat(frames, ignore_index=True)
