"""A simulated study with arms (issue #18): the same items, each arm's raters with their own
noise, so a comparison of arms can be checked against a known answer.

Each arm cuts the items into HITs of ``items_per_hit``; each HIT gets ``raters_per_item`` new
workers of that arm (a worker is in one arm and does one HIT). A worker answers an item with
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
    raters_per_item: int = 5,
    items_per_hit: int = 20,
    bias_sd: float = 0.5,
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
        order = rng.permutation(len(keys))
        for h, start in enumerate(range(0, len(keys), items_per_hit)):
            hit = [keys[i] for i in order[start : start + items_per_hit]]
            truth = np.array([truths[k] for k in hit])
            for r in range(raters_per_item):
                raw = truth + rng.normal(0, bias_sd) + rng.normal(0, sd, len(hit))
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
