"""Reproducibility (METHODS.md section 6): a new instrument against the original, on shared items.

On the items both instruments have (with at least two values on each side): Spearman's rho and
Pearson's r between the item means, Pearson's r between the item sds (sample sd, ddof = 1),
the mean sd and sd of sds of each side, and the items whose mean and whose sd changed most and
least (change = new - original; "most" by absolute change). Alpha of each side is computed on
the shared items, so the two figures are about the same items.

Too few shared items make every figure here meaningless: below ``MIN_SHARED_ITEMS`` (30: the
smallest sample for which a correlation's 95% interval is narrower than about +-0.3 at
r = 0.7) the comparison is refused with the overlap in the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from harness.characterize.precision import Precision, precision
from harness.characterize.repeatability import Repeatability, repeatability
from harness.errors import InputError
from harness.stats.alpha import Level
from harness.stats.reliability import DEFAULT_ALPHA_MIN

MIN_SHARED_ITEMS = 30
EXTREMES = 5


@dataclass(frozen=True)
class Overlap:
    n_new: int
    n_original: int
    shared: list[str]

    @property
    def n_shared(self) -> int:
        return len(self.shared)

    def to_dict(self) -> dict[str, Any]:
        return {"n_new": self.n_new, "n_original": self.n_original, "n_shared": self.n_shared}


@dataclass(frozen=True)
class Reproducibility:
    overlap: Overlap
    alpha_new: Repeatability
    alpha_original: Repeatability
    spearman_means: float
    pearson_means: float
    pearson_sds: float
    mean_sd_new: float
    mean_sd_original: float
    sd_sd_new: float
    sd_sd_original: float
    changes: pd.DataFrame  # per shared item: mean/sd of each side and their change
    extremes: int = EXTREMES

    def most_changed(self, column: str) -> pd.DataFrame:
        """The items whose ``column`` ("mean_change" or "sd_change") changed most."""
        order = self.changes[column].abs().sort_values(ascending=False, kind="stable")
        return self.changes.loc[order.index[: self.extremes]]

    def least_changed(self, column: str) -> pd.DataFrame:
        order = self.changes[column].abs().sort_values(kind="stable")
        return self.changes.loc[order.index[: self.extremes]]

    def to_dict(self) -> dict[str, Any]:
        def rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
            return [
                {"item_id": str(i), **{str(k): float(v) for k, v in r.items()}}
                for i, r in frame.iterrows()
            ]

        return {
            "overlap": self.overlap.to_dict(),
            "alpha_new": self.alpha_new.to_dict(),
            "alpha_original": self.alpha_original.to_dict(),
            "spearman_means": self.spearman_means,
            "pearson_means": self.pearson_means,
            "pearson_sds": self.pearson_sds,
            "mean_sd_new": self.mean_sd_new,
            "mean_sd_original": self.mean_sd_original,
            "sd_sd_new": self.sd_sd_new,
            "sd_sd_original": self.sd_sd_original,
            "mean_changed_most": rows(self.most_changed("mean_change")),
            "mean_changed_least": rows(self.least_changed("mean_change")),
            "sd_changed_most": rows(self.most_changed("sd_change")),
            "sd_changed_least": rows(self.least_changed("sd_change")),
        }


def item_overlap(
    new: Precision, original: Precision, *, new_name: str, original_name: str, minimum: int
) -> Overlap:
    """The shared items (with two or more values on each side); refuse below ``minimum``."""
    shared = sorted(set(new.summaries.index) & set(original.summaries.index))
    overlap = Overlap(len(new.summaries), len(original.summaries), shared)
    if overlap.n_shared < minimum:
        raise InputError(
            f"{new_name} and {original_name} share {overlap.n_shared} item(s) with two or more "
            f"values ({new_name} has {overlap.n_new}, {original_name} has {overlap.n_original}); "
            f"at least {minimum} shared items are needed to compare the instruments. Check that "
            "both use the same item ids (e.g. ws353-001 for WS353's first pair)."
        )
    return overlap


def reproducibility(
    new: pd.DataFrame,
    original: pd.DataFrame,
    *,
    new_name: str = "new",
    original_name: str = "original",
    level: Level = "interval",
    resamples: int = 1000,
    seed: int = 0,
    minimum: int = MIN_SHARED_ITEMS,
    alpha_mins: tuple[float, float] = (DEFAULT_ALPHA_MIN, DEFAULT_ALPHA_MIN),
) -> Reproducibility:
    """The reproducibility figures of ``new`` against ``original`` (long tables); each
    alpha's q against its own instrument's smallest acceptable alpha (``alpha_mins``)."""
    p_new, p_original = precision(new), precision(original)
    overlap = item_overlap(
        p_new, p_original, new_name=new_name, original_name=original_name, minimum=minimum
    )
    ids = overlap.shared
    a = p_new.summaries.loc[ids]
    b = p_original.summaries.loc[ids]
    sd_a, sd_b = p_new.sd.loc[ids], p_original.sd.loc[ids]  # sample sds, as precision's
    changes = pd.DataFrame(
        {
            "mean_new": a["mean"],
            "mean_original": b["mean"],
            "mean_change": a["mean"] - b["mean"],
            "sd_new": sd_a,
            "sd_original": sd_b,
            "sd_change": sd_a - sd_b,
        }
    )
    keep_new = new[new["item_id"].isin(ids)]
    keep_original = original[original["item_id"].isin(ids)]
    return Reproducibility(
        overlap=overlap,
        alpha_new=repeatability(
            keep_new, level, resamples=resamples, seed=seed, alpha_min=alpha_mins[0]
        ),
        alpha_original=repeatability(
            keep_original, level, resamples=resamples, seed=seed, alpha_min=alpha_mins[1]
        ),
        spearman_means=float(stats.spearmanr(a["mean"], b["mean"]).statistic),
        pearson_means=float(stats.pearsonr(a["mean"], b["mean"]).statistic),
        pearson_sds=float(stats.pearsonr(sd_a, sd_b).statistic),
        mean_sd_new=float(sd_a.mean()),
        mean_sd_original=float(sd_b.mean()),
        sd_sd_new=float(np.std(sd_a, ddof=0)),
        sd_sd_original=float(np.std(sd_b, ddof=0)),
        changes=changes,
    )
