"""H5 disagreeable: does the worker differ where the others agree? (docs/methods.md section 4)

Values collapse to -1 / 0 / +1 (below, at, above the scale midpoint). The published rule was
made for three raters per item: a worker is disagreeable on an item where "the other two" agree
with each other and the worker does not. harness applies it to every pair of other raters: on an
item, each pair of the worker's co-raters who fall on the same side is one occasion, and the
worker differs on it when their own side is another. The score is the share of occasions where
the worker differs, over all the worker's items; with three raters per item it is exactly the
published rule, and with more it is that rule averaged over every choice of two co-raters (so
it does not wait for 12 raters to be unanimous, which never happens on WS353). Flagged above
the threshold (0.5) with at least `MIN_ITEMS` items that have an agreeing pair.

Per item, with c_s the co-raters on side s: occasions = sum_s C(c_s, 2); the worker differs on
those of the sides other than their own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.aggregates import ItemAggregates, cells, sides
from harness.screening.context import ScreeningContext, content, result, workers_of
from harness.spec.heuristics import HeuristicKey

MIN_ITEMS = 3  # items with an agreeing pair of co-raters needed for a flag


def disagreeable(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H5: share of agreeing pairs of co-raters (per item) whose side the worker does not share."""
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
    pairs = others * (others - 1) / 2  # agreeing pairs of co-raters on each side
    occasions = pairs.sum(axis=1)
    differs = occasions - (pairs * own).sum(axis=1)
    table = pd.DataFrame(
        {"worker_id": cell["worker_id"], "occasions": occasions, "differs": differs}
    )
    table = table[table["occasions"] > 0]
    grouped = table.groupby("worker_id")
    totals = grouped[["occasions", "differs"]].sum()
    share = (totals["differs"] / totals["occasions"]).astype(float)
    count = grouped.size()
    flag = (share > context.threshold(HeuristicKey.DISAGREEABLE)) & (count >= MIN_ITEMS)
    return result(workers, share, count, flag)
