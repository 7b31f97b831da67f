"""Precision (METHODS.md section 6): how far one item's values spread around its mean.

Per item the sample standard deviation (ddof = 1) of its values, over items with at least two
values (one value has no spread to measure). The sample sd estimates the spread of the population
of raters the item's few raters were drawn from; with 13 raters the population sd (ddof = 0)
would be 4% lower, and the WS353 study's figures (mean sd 1.7, sd of sds .54 over 13 raters)
are sample sds: harness reproduces them as 1.704 and .544. Reported: the mean of those sds and
their sd (ddof = 0: the sds of all the items, not a sample of them), the band holding the middle
two thirds of items (the 1/6 and 5/6 quantiles, linear interpolation), the band mean sd +- sd of
sds (the WS353 study's "middle band", 1.16 to 2.25 on its 13 raters), the items with the highest
and lowest sd, and the per-item means the crescent plot draws the sds against.
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
SD_COLUMN = "sd_sample"  # item_summaries' sample sd (ddof = 1)
SD_DDOF = 1


@dataclass(frozen=True)
class Precision:
    summaries: pd.DataFrame  # per item: n, mean, median, sd (ddof 0), sd_sample; n >= 2 only
    mean_sd: float
    sd_sd: float
    band: tuple[float, float]  # the middle two thirds of items
    highest: list[str]  # item ids, highest sd first
    lowest: list[str]  # item ids, lowest sd first

    @property
    def sd(self) -> pd.Series:
        """Each item's sample sd (ddof = 1), the sd every precision figure is made of."""
        return self.summaries[SD_COLUMN]

    @property
    def band_mean_sd(self) -> tuple[float, float]:
        """mean sd - sd of sds to mean sd + sd of sds (the WS353 study's middle band)."""
        return (self.mean_sd - self.sd_sd, self.mean_sd + self.sd_sd)

    @property
    def mean(self) -> pd.Series:
        return self.summaries["mean"]

    def to_dict(self) -> dict[str, Any]:
        def rows(ids: list[str]) -> list[dict[str, Any]]:
            return [
                {"item_id": i, "sd": float(self.sd[i]), "mean": float(self.mean[i])} for i in ids
            ]

        return {
            "ddof": SD_DDOF,
            "n_items": len(self.summaries),
            "mean_sd": self.mean_sd,
            "sd_sd": self.sd_sd,
            "band_two_thirds": list(self.band),
            "band_mean_plus_minus_sd": list(self.band_mean_sd),
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
    sd = table[SD_COLUMN].to_numpy(dtype=float)
    order = table[SD_COLUMN].sort_values(kind="stable")
    low, high = np.quantile(sd, BAND)
    return Precision(
        summaries=table,
        mean_sd=float(sd.mean()),
        sd_sd=float(sd.std(ddof=0)),
        band=(float(low), float(high)),
        highest=[str(i) for i in order.index[::-1][:extremes]],
        lowest=[str(i) for i in order.index[:extremes]],
    )
