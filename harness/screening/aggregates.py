"""Per-item aggregates the agreement heuristics (H3, H5, H8) read, kept apart from the workers.

Splitting "what the crowd said about each item" from "how one worker compares with it" lets the
same scoring code run on a whole table (batch) and on the few workers an assignment touches
(live, `harness.screening.live`), where the aggregates are kept up to date item by item.

``cells``: one value per (item, worker), the mean of the worker's showings of a real item.
``ItemAggregates``: per item the row mean (H3's consensus), the sum and count of its cells (H8's
leave-one-out mean) and how many cells fall below, at and above the scale midpoint (H5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.screening.context import shared

SIDES = [-1, 0, 1]


def cells(rows: pd.DataFrame) -> pd.DataFrame:
    """``item_id, worker_id, value``: each worker's mean value per item (content rows)."""
    return shared("cells", (rows,), None, lambda: _cells(rows))


def _cells(rows: pd.DataFrame) -> pd.DataFrame:
    item_codes, items = pd.factorize(rows["item_id"])
    worker_codes, workers = pd.factorize(rows["worker_id"])
    width = max(len(workers), 1)
    pair_codes, pairs = pd.factorize(item_codes.astype(np.int64) * width + worker_codes)
    values = rows["value"].to_numpy(dtype=float)
    return pd.DataFrame(
        {
            "item_id": np.asarray(items)[pairs // width],
            "worker_id": np.asarray(workers)[pairs % width],
            "value": np.bincount(pair_codes, values) / np.bincount(pair_codes),
        }
    )


def sides(values: pd.Series | np.ndarray, midpoint: float) -> np.ndarray:
    """-1 / 0 / +1: below, at, above the scale midpoint."""
    return np.sign(np.round(np.asarray(values, dtype=float) - midpoint, 9)).astype(int)


@dataclass
class ItemAggregates:
    """Per real item: ``consensus`` (row mean), ``totals`` (cell sum, size), ``sides`` counts."""

    consensus: pd.Series
    totals: pd.DataFrame
    sides: pd.DataFrame

    @classmethod
    def of(cls, rows: pd.DataFrame, midpoint: float) -> ItemAggregates:
        """The aggregates of content ``rows`` (every rater of every item in them).

        Inside `harness.screening.context.sharing` (a batch run, which never calls `replace`)
        the aggregates of one table are computed once.
        """
        return shared("aggregates", (rows,), midpoint, lambda: cls._of(rows, midpoint))

    @classmethod
    def _of(cls, rows: pd.DataFrame, midpoint: float) -> ItemAggregates:
        item_codes, items = pd.factorize(rows["item_id"])
        values = rows["value"].to_numpy(dtype=float)
        n = len(items)
        cell = cells(rows)
        cell_values = cell["value"].to_numpy()
        cell_items = pd.Index(items).get_indexer(pd.Index(cell["item_id"]))
        flat = cell_items * len(SIDES) + sides(cell_values, midpoint) + 1
        counts = np.bincount(flat, minlength=n * len(SIDES)).reshape(n, len(SIDES))
        index = pd.Index(items, name="item_id")
        totals = {
            "sum": np.bincount(cell_items, cell_values, minlength=n),
            "size": np.bincount(cell_items, minlength=n),
        }
        with np.errstate(invalid="ignore"):
            consensus = np.bincount(item_codes, values, minlength=n) / np.bincount(
                item_codes, minlength=n
            )
        return cls(
            consensus=pd.Series(consensus, index=index),
            totals=pd.DataFrame(totals, index=index),
            sides=pd.DataFrame(counts, index=index, columns=SIDES),
        )

    def cover(self, items: pd.Index) -> None:
        """Give every one of ``items`` a row (unrated: no consensus, zero counts)."""
        self.consensus = self.consensus.reindex(self.consensus.index.union(items))
        self.totals = self.totals.reindex(self.totals.index.union(items), fill_value=0)
        self.sides = self.sides.reindex(self.sides.index.union(items), fill_value=0)

    def replace(self, fresh: ItemAggregates) -> None:
        """Take ``fresh``'s aggregates (computed from every row of its items) for its items."""
        at = self.totals.index.get_indexer(fresh.totals.index)
        if (at < 0).any():
            self.cover(fresh.totals.index)
            at = self.totals.index.get_indexer(fresh.totals.index)
        index = self.totals.index
        self.consensus = pd.Series(_put(self.consensus, at, fresh.consensus), index=index)
        self.totals = pd.DataFrame(
            {c: _put(self.totals[c], at, fresh.totals[c]) for c in ("sum", "size")}, index=index
        )
        self.sides = pd.DataFrame(
            {c: _put(self.sides[c], at, fresh.sides[c]) for c in SIDES}, index=index
        )


def _put(old: pd.Series, at: np.ndarray, new: pd.Series) -> np.ndarray:
    """``old``'s values with ``new``'s at positions ``at`` (plain arrays: a few items of a
    study are replaced at each update, and pandas' label assignment costs far more)."""
    values = old.to_numpy(copy=True)
    values[at] = new.to_numpy()
    return values
