"""H3 low variance and H6 control-group variance (docs/methods.md section 4).

H3's published form (variance < 1 on a 1-5 scale) does not transfer across scales and item
sets, so the default is relative: the worker's variance divided by the variance of the
consensus means of the items the worker rated; a careful worker sits near or above 1, a
straight-liner near 0. `low_variance_absolute` keeps the published form, scaled to the study's
scale by (range/4)^2 like H6. Variances are sample variances (ddof=1) throughout.
"""

from __future__ import annotations

import pandas as pd

from harness.screening.aggregates import ItemAggregates
from harness.screening.context import ScreeningContext, answered, content, result, workers_of
from harness.spec.heuristics import HeuristicKey

MIN_ITEMS = 2  # a variance needs two values


def scale_factor(context: ScreeningContext) -> float:
    """(range/4)^2: converts a variance threshold stated on a 1-5 scale to the study's scale."""
    return (context.scale.range / 4.0) ** 2


def low_variance(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H3 (relative): worker variance / variance of the consensus means of their items.

    Flag below the threshold (0.25). ``variance`` (the worker's own) is added. NaN when the
    worker rated fewer than two items or the consensus means of their items do not vary.
    """
    rows = content(judgments, context)
    consensus = ItemAggregates.of(rows, context.scale.midpoint).consensus
    return low_variance_of(workers_of(judgments), rows, consensus, context)


def low_variance_of(
    workers: pd.Index, rows: pd.DataFrame, consensus: pd.Series, context: ScreeningContext
) -> pd.DataFrame:
    """H3 for ``workers`` from their content ``rows`` and every item's ``consensus`` mean."""
    rows = rows.assign(consensus=rows["item_id"].map(consensus))
    grouped = rows.groupby("worker_id")
    variance = grouped["value"].var(ddof=1)
    consensus_variance = grouped["consensus"].var(ddof=1)
    count = grouped.size()
    ratio = variance / consensus_variance.where(consensus_variance > 1e-12)
    ratio = ratio.where(count >= MIN_ITEMS)
    flag = ratio < context.threshold(HeuristicKey.LOW_VARIANCE)
    return result(workers, ratio, count, flag, variance=variance)


def low_variance_absolute(
    judgments: pd.DataFrame, context: ScreeningContext, threshold: float = 1.0
) -> pd.DataFrame:
    """H3 in its published form: variance below ``threshold`` (stated on a 1-5 scale)."""
    rows = content(judgments, context)
    grouped = rows.groupby("worker_id")["value"]
    count = grouped.size()
    variance = grouped.var(ddof=1).where(count >= MIN_ITEMS)
    flag = variance < threshold * scale_factor(context)
    return result(workers_of(judgments), variance, count, flag)


def control_group_variance(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H6: mean over control groups of the worker's variance within the group.

    Only groups where the worker gave at least two values count (the evidence is their number).
    Flag above the threshold (1 on a 1-5 scale) times (range/4)^2.
    """
    rows = answered(judgments, context)
    rows = rows.assign(group=context.item_column(rows, "group"))
    rows = rows[rows["group"].notna() & (rows["group"].astype(str) != "")]
    per_group = rows.groupby(["worker_id", "group"])["value"].agg(["var", "size"])
    per_group = per_group[per_group["size"] >= MIN_ITEMS]
    by_worker = per_group.groupby(level="worker_id")["var"]
    score = by_worker.mean() if len(per_group) else pd.Series(dtype=float)
    evidence = by_worker.size() if len(per_group) else pd.Series(dtype=int)
    flag = score > context.threshold(HeuristicKey.CONTROL_GROUP_VARIANCE) * scale_factor(context)
    return result(workers_of(judgments), score.astype(float), evidence, flag)
