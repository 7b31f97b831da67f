"""Per-item and per-worker summaries of a long judgment table (skips are not values).

Per item (METHODS.md section 6, precision): n, mean, median, the population standard deviation
``sd`` = sqrt(sum (x - mean)^2 / n) (ddof = 0, the figure the reports use) and the sample
standard deviation ``sd_sample`` (ddof = 1; NaN when n = 1). Per worker: the same over the
worker's values, plus the number of skips, min and max.
"""

from __future__ import annotations

import pandas as pd

from harness.stats._table import valued


def item_summaries(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per item with a value: ``n, mean, median, sd, sd_sample`` (index ``item_id``)."""
    return _summaries(valued(judgments), "item_id")


def worker_summaries(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per worker: ``n, n_skipped, mean, median, sd, sd_sample, min, max``."""
    table = _summaries(valued(judgments), "worker_id")
    rows = valued(judgments).groupby("worker_id")["value"]
    table["min"] = rows.min()
    table["max"] = rows.max()
    every = judgments.groupby("worker_id").size()
    table = table.reindex(every.index)
    table["n"] = table["n"].fillna(0).astype(int)
    table.insert(1, "n_skipped", (every - table["n"]).astype(int))
    return table


def _summaries(values: pd.DataFrame, key: str) -> pd.DataFrame:
    groups = values.astype({"value": float}).groupby(key, sort=True)["value"]
    return pd.DataFrame(
        {
            "n": groups.size(),
            "mean": groups.mean(),
            "median": groups.median(),
            "sd": groups.std(ddof=0),
            "sd_sample": groups.std(ddof=1),
        }
    )
