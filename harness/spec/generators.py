"""Item generators: designs whose items are sampled from another instrument's items."""

from __future__ import annotations

import numpy as np
import pandas as pd


def pairs_of_pairs(source: pd.DataFrame, display: list[str], n: int, seed: int) -> pd.DataFrame:
    """Sample ``n`` pairs of pairs (P, Q) whose distance |mean(P) - mean(Q)| is spread uniformly.

    ``source`` has ``item_id``, the ``display`` columns and ``mean`` (the original instrument's
    item mean). The distance range [0, max] is cut into ``n`` equal bins and one unused pair
    of items is drawn at random from each bin; a bin with no unused pair (the far end of the
    range is sparse) takes the unused pair nearest to its centre. Pairs whose two items show
    the same words (WS353's repeated (money, cash)) are never drawn. Which item is P and which
    is Q is a coin flip, so "P is more similar" is not always the right answer. Same seed, same
    design (docs/methods.md section 6, Resolution).
    """
    rng = np.random.default_rng(seed)
    means = source["mean"].to_numpy(dtype=float)
    keys = source[display].astype(str).agg("\x1f".join, axis=1).to_numpy()
    first, second = np.triu_indices(len(source), k=1)
    usable = keys[first] != keys[second]
    first, second = first[usable], second[usable]
    if len(first) < n:
        raise ValueError(f"only {len(first)} distinct pairs of items; cannot draw {n}")
    distance = np.abs(means[first] - means[second])
    edges = np.linspace(0.0, distance.max(), n + 1)
    bins = np.clip(np.searchsorted(edges, distance, side="right") - 1, 0, n - 1)
    used = np.zeros(len(first), dtype=bool)
    chosen = []
    for b in range(n):
        candidates = np.flatnonzero((bins == b) & ~used)
        if len(candidates):
            pick = rng.choice(candidates)
        else:
            centre = (edges[b] + edges[b + 1]) / 2
            free = np.flatnonzero(~used)
            pick = free[np.argmin(np.abs(distance[free] - centre))]
        used[pick] = True
        chosen.append(pick)
    chosen_arr = np.array(chosen)
    swap = rng.random(n) < 0.5
    p = np.where(swap, second[chosen_arr], first[chosen_arr])
    q = np.where(swap, first[chosen_arr], second[chosen_arr])
    out = pd.DataFrame({"item_id": [f"pp-{i + 1:03d}" for i in range(n)]})
    out["p_item_id"] = source["item_id"].to_numpy()[p]
    out["q_item_id"] = source["item_id"].to_numpy()[q]
    for column in display:
        out[f"p_{column}"] = source[column].to_numpy()[p]
    for column in display:
        out[f"q_{column}"] = source[column].to_numpy()[q]
    out["p_mean"] = means[p]
    out["q_mean"] = means[q]
    out["distance"] = np.abs(means[p] - means[q])
    return out
