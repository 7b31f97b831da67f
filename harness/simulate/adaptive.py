"""Fixed against adaptive collection on a simulated crowd whose items differ as a pilot's do.

Each item has a true mean and a true sd (a pilot's item means and sds: WS353's by default); a
careful rater's value is the true mean plus normal noise of the item's sd, rounded to the
scale's step and kept on the scale. The fixed design asks every item of ``raters`` raters.
The adaptive one (`harness.stats.sequential`) asks every item of ``rule.floor`` raters, then
builds each next assignment from the ``per_assignment`` unfinished items farthest from the
target, until every item is finished. What it measures is in `Collected`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from harness.stats.alpha import krippendorff_alpha
from harness.stats.sequential import Rule, item_precision, next_items


@dataclass(frozen=True)
class Truth:
    """The simulated items: ids, true means and true sds, on a scale from ``low`` to ``high``
    in steps of ``step``."""

    items: list[str]
    means: np.ndarray
    sds: np.ndarray
    low: float = 0.0
    high: float = 10.0
    step: float = 1.0

    @classmethod
    def of_pilot(cls, judgments: pd.DataFrame, low: float = 0.0, high: float = 10.0) -> Truth:
        """Items whose true means and sds are a pilot's item means and sample sds."""
        values = judgments.dropna(subset=["value"]).groupby("item_id")["value"]
        means, sds = values.mean(), values.std(ddof=1).fillna(0.0)
        return cls([str(i) for i in means.index], means.to_numpy(), sds.to_numpy(), low, high)

    def draw(self, rng: np.random.Generator, index: np.ndarray) -> np.ndarray:
        """One careful rater's values for the items at ``index``."""
        raw = self.means[index] + self.sds[index] * rng.standard_normal(len(index))
        snapped: np.ndarray = np.round(raw / self.step) * self.step
        clipped: np.ndarray = np.clip(snapped, self.low, self.high)
        return clipped


@dataclass(frozen=True)
class Collected:
    """One simulated collection: judgments taken, each item's number of values, and how the
    item means came out against the truth and against the pilot ``reference`` means."""

    judgments: int
    per_item: np.ndarray
    worst_half_width: float  # the largest true 95% half-width of an item mean: 1.96 sd / sqrt(n)
    half_width_99: float  # the 99th percentile of the items' true half-widths
    mean_error_variance: float  # the mean over items of sd^2 / n
    rho_reference: float  # Spearman's rho of the item means with the reference means
    alpha: float
    mean_bias: float  # the mean over items of (item mean - true mean)
    sd_bias: float  # the mean over items of (sample sd - true sd)


def collect_fixed(truth: Truth, raters: int, seed: int, reference: np.ndarray) -> Collected:
    """Every item rated by ``raters`` raters."""
    rng = np.random.default_rng(seed)
    index = np.arange(len(truth.items))
    values = [truth.draw(rng, index) for _ in range(raters)]
    table = pd.DataFrame(
        {
            "item_id": np.tile(truth.items, raters),
            "worker_id": np.repeat([f"w{r}" for r in range(raters)], len(index)),
            "value": np.concatenate(values),
        }
    )
    return _measured(truth, table, reference)


def collect_adaptive(
    truth: Truth, rule: Rule, per_assignment: int, seed: int, reference: np.ndarray
) -> Collected:
    """``rule.floor`` raters for every item, then assignments of the unfinished items farthest
    from the target, each by a new rater, until none is unfinished."""
    rng = np.random.default_rng(seed)
    position = {item: i for i, item in enumerate(truth.items)}
    index = np.arange(len(truth.items))
    rows: list[pd.DataFrame] = []
    for r in range(rule.floor):
        rows.append(_rows(truth.items, f"w{r}", truth.draw(rng, index)))
    table = pd.concat(rows, ignore_index=True)
    worker = rule.floor
    while True:
        asked = next_items(
            item_precision(table, truth.items, rule.prior, rule.sure), rule, per_assignment
        )
        if not asked:
            break
        at = np.array([position[i] for i in asked])
        table = pd.concat(
            [table, _rows(asked, f"w{worker}", truth.draw(rng, at))], ignore_index=True
        )
        worker += 1
    return _measured(truth, table, reference)


def _rows(items: list[str], worker: str, values: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"item_id": items, "worker_id": worker, "value": values})


def _measured(truth: Truth, table: pd.DataFrame, reference: np.ndarray) -> Collected:
    grouped = table.groupby("item_id", sort=False)["value"]
    n = grouped.count().reindex(truth.items).to_numpy()
    means = grouped.mean().reindex(truth.items).to_numpy()
    sds = grouped.std(ddof=1).reindex(truth.items).to_numpy()
    half = 1.959963984540054 * truth.sds / np.sqrt(n)
    return Collected(
        judgments=len(table),
        per_item=n,
        worst_half_width=float(np.max(half)),
        half_width_99=float(np.percentile(half, 99)),
        mean_error_variance=float(np.mean(truth.sds**2 / n)),
        rho_reference=float(stats.spearmanr(means, reference).statistic),
        alpha=krippendorff_alpha(table, "interval"),
        mean_bias=float(np.mean(means - truth.means)),
        sd_bias=float(np.nanmean(sds - truth.sds)),
    )
