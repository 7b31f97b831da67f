"""H5 disagreeable: does the worker differ where everyone else agrees? (METHODS.md section 4)

Values collapse to -1 / 0 / +1 (below, at, above the scale midpoint). Over the items where all
*other* raters (at least `MIN_OTHERS` of them) fall in one category, the score is the share
where this worker falls in another; flagged above the threshold (0.5) with at least
`MIN_UNANIMOUS` such items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, content, result, workers_of

MIN_OTHERS = 2  # a "unanimous" vote of one other rater says little
MIN_UNANIMOUS = 3


def disagreeable(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H5: share of unanimous items (by the others) where the worker's side differs."""
    rows = content(judgments, context)
    cell = rows.groupby(["item_id", "worker_id"], as_index=False)["value"].mean()
    cell["side"] = np.sign(np.round(cell["value"] - context.scale.midpoint, 9)).astype(int)
    counts = pd.crosstab(cell["item_id"], cell["side"]).reindex(columns=[-1, 0, 1], fill_value=0)
    per_item = counts.loc[cell["item_id"]].to_numpy()
    own = np.eye(3, dtype=int)[cell["side"].to_numpy() + 1]
    others = per_item - own
    n_others = others.sum(axis=1)
    unanimous = (n_others >= MIN_OTHERS) & (others.max(axis=1) == n_others)
    differs = unanimous & (others.argmax(axis=1) != cell["side"].to_numpy() + 1)
    table = pd.DataFrame(
        {"worker_id": cell["worker_id"], "unanimous": unanimous, "differs": differs}
    )
    table = table[table["unanimous"]]
    grouped = table.groupby("worker_id")["differs"]
    share = grouped.mean().astype(float)
    count = grouped.size()
    flag = (share > context.threshold("disagreeable")) & (count >= MIN_UNANIMOUS)
    return result(workers_of(judgments), share, count, flag)
