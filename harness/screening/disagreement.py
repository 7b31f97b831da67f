"""H5 disagreeable: does the worker differ where everyone else agrees? (docs/methods.md section 4)

Values collapse to -1 / 0 / +1 (below, at, above the scale midpoint). Over the items where all
*other* raters (at least `MIN_OTHERS` of them) fall in one category, the score is the share
where this worker falls in another; flagged above the threshold (0.5) with at least
`MIN_UNANIMOUS` such items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.aggregates import ItemAggregates, cells, sides
from harness.screening.context import ScreeningContext, content, result, workers_of

MIN_OTHERS = 2  # a "unanimous" vote of one other rater says little
MIN_UNANIMOUS = 3


def disagreeable(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H5: share of unanimous items (by the others) where the worker's side differs."""
    rows = content(judgments, context)
    counts = ItemAggregates.of(rows, context.scale.midpoint).sides
    return disagreeable_of(workers_of(judgments), cells(rows), counts, context)


def disagreeable_of(
    workers: pd.Index, cell: pd.DataFrame, counts: pd.DataFrame, context: ScreeningContext
) -> pd.DataFrame:
    """H5 for ``workers`` from their ``cell`` values and every item's side ``counts``."""
    side = sides(cell["value"], context.scale.midpoint)
    per_item = counts.loc[cell["item_id"]].to_numpy()
    own = np.eye(3, dtype=int)[side + 1]
    others = per_item - own
    n_others = others.sum(axis=1)
    unanimous = (n_others >= MIN_OTHERS) & (others.max(axis=1) == n_others)
    differs = unanimous & (others.argmax(axis=1) != side + 1)
    table = pd.DataFrame(
        {"worker_id": cell["worker_id"], "unanimous": unanimous, "differs": differs}
    )
    table = table[table["unanimous"]]
    grouped = table.groupby("worker_id")["differs"]
    share = grouped.mean().astype(float)
    count = grouped.size()
    flag = (share > context.threshold("disagreeable")) & (count >= MIN_UNANIMOUS)
    return result(workers, share, count, flag)
