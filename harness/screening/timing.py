"""H1 slow, H2 quick and H13 steady timing: how long a worker spends per item
(docs/methods.md section 4).

All read the ``seconds`` column (every row with a time, skips included: a skip also takes
time); without it nothing can be said. H1 is report-only by default: filtering slow workers was
found to lower agreement with references. H13 looks for timing no person produces: people
spend very different times on different items (an easy pair, a hard one, a glance away), a
script or a worker pasting a model's answers keeps a clockwork pace.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, result, shared, workers_of
from harness.spec.heuristics import HeuristicKey


def _seconds(judgments: pd.DataFrame) -> pd.DataFrame:
    return shared("seconds", (judgments,), None, lambda: _seconds_of(judgments))


def _seconds_of(judgments: pd.DataFrame) -> pd.DataFrame:
    if "seconds" not in judgments.columns:
        return pd.DataFrame({"worker_id": pd.Series(dtype=str), "seconds": pd.Series(dtype=float)})
    seconds = pd.to_numeric(judgments["seconds"], errors="coerce")
    timed = seconds.notna().to_numpy()
    workers = judgments["worker_id"].astype(str).to_numpy()
    return pd.DataFrame({"worker_id": workers[timed], "seconds": seconds.to_numpy()[timed]})


def slow(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H1: mean seconds per item, flagged above the threshold (300 s); ``percentile`` added."""
    times = _seconds(judgments).groupby("worker_id")["seconds"]
    mean = times.mean()
    percentile = mean.rank(pct=True) * 100
    flag = mean > context.threshold(HeuristicKey.SLOW)
    return result(workers_of(judgments), mean, times.size(), flag, percentile=percentile)


def quick(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H2: median seconds per item, flagged below the threshold (2 s)."""
    times = _seconds(judgments).groupby("worker_id")["seconds"]
    median = times.median()
    flag = median < context.threshold(HeuristicKey.QUICK)
    return result(workers_of(judgments), median, times.size(), flag)


MIN_TIMED = 10  # H13: timed items needed for a flag


def steady_timing(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H13: coefficient of variation (sample sd / mean) of the seconds per item, flagged below
    the threshold (0.2) with at least `MIN_TIMED` timed items."""
    times = _seconds(judgments).groupby("worker_id")["seconds"]
    mean = times.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        variation = (times.std(ddof=1) / mean).where(mean > 0)
    count = times.size()
    flag = (variation < context.threshold(HeuristicKey.STEADY_TIMING)) & (count >= MIN_TIMED)
    return result(workers_of(judgments), variation, count, flag)
