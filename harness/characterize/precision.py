"""Precision (METHODS.md section 6): how far one item's values spread around its mean.

Per item the population standard deviation (ddof = 0) of its values, over items with at least
two values (one value has no spread to measure). Reported: the mean of those sds and their sd
(also ddof = 0), the band holding the middle two thirds of items (the 1/6 and 5/6 quantiles,
linear interpolation), the items with the highest and lowest sd, and the per-item means the
crescent plot draws the sds against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import StatsError
from harness.stats.summaries import item_summaries

BAND = (1 / 6, 5 / 6)
EXTREMES = 5


@dataclass(frozen=True)
class Precision:
    summaries: pd.DataFrame  # per item: n, mean, median, sd (ddof 0), sd_sample; n >= 2 only
    mean_sd: float
    sd_sd: float
    band: tuple[float, float]
    highest: list[str]  # item ids, highest sd first
    lowest: list[str]  # item ids, lowest sd first

    @property
    def sd(self) -> pd.Series:
        return self.summaries["sd"]

    @property
    def mean(self) -> pd.Series:
        return self.summaries["mean"]

    def to_dict(self) -> dict[str, Any]:
        def rows(ids: list[str]) -> list[dict[str, Any]]:
            return [
                {"item_id": i, "sd": float(self.sd[i]), "mean": float(self.mean[i])} for i in ids
            ]

        return {
            "ddof": 0,
            "n_items": len(self.summaries),
            "mean_sd": self.mean_sd,
            "sd_sd": self.sd_sd,
            "band_two_thirds": list(self.band),
            "highest_sd": rows(self.highest),
            "lowest_sd": rows(self.lowest),
            "sd_by_item": {str(k): float(v) for k, v in self.sd.items()},
        }


def precision(judgments: pd.DataFrame, *, extremes: int = EXTREMES) -> Precision:
    """The precision figures of ``judgments`` (see the module docstring)."""
    table = item_summaries(judgments)
    table = table[table["n"] >= 2]
    if table.empty:
        raise StatsError("precision needs items with at least two values; none has two")
    sd = table["sd"].to_numpy(dtype=float)
    order = table["sd"].sort_values(kind="stable")
    low, high = np.quantile(sd, BAND)
    return Precision(
        summaries=table,
        mean_sd=float(sd.mean()),
        sd_sd=float(sd.std(ddof=0)),
        band=(float(low), float(high)),
        highest=[str(i) for i in order.index[::-1][:extremes]],
        lowest=[str(i) for i in order.index[:extremes]],
    )
