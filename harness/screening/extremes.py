"""Radical and centrist workers: reported, never used to filter (docs/methods.md section 4).

Radical: more than half the worker's values at the two scale ends. Centrist: more than half
at the points "one step in from the ends" of the five-point scale the rule was published on
(2 and 4 on 1-5), carried over to any scale proportionally: within 5% of the range (or half
the scale's step, when that is more) of the points a quarter of the range in from each end
(2.5 and 7.5 on 0-10, so 2 to 3 and 7 to 8 count; 1 and 9 do not; 2 and 4 on 1-5). As
published, the shares leave out values at the scale's midpoint (a "no opinion" answer says
nothing about how a worker uses the ends), and only workers whose values vary are marked: a
straight-liner's values are all at one point, which is H3's concern. A radical worker's
sample variance must be above 1 on a 1-5 scale (scaled by (range / 4)^2 on others, as H6); a
centrist's above a quarter of that, since a worker answering only 2 and 4 on 1-5 has a
variance of at most 1. Scores are the shares over the worker's real items; ``variance`` is
reported beside them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, content, result, workers_of
from harness.screening.variance import scale_factor

SHARE = 0.5
MIN_VARIANCE = 1.0  # on a 1-5 scale; radical workers at or below it are not marked
CENTRIST_MIN_VARIANCE = 0.25  # on a 1-5 scale, for centrists
CENTRIST_INSET = 0.25  # share of the range: 2 and 4 on 1-5
CENTRIST_WIDTH = 0.05  # share of the range either side (at least half a step)


def _share_near(
    judgments: pd.DataFrame,
    context: ScreeningContext,
    inset: float,
    tolerance: float,
    min_variance: float,
) -> pd.DataFrame:
    scale = context.scale
    rows = content(judgments, context)
    values = rows["value"].to_numpy(dtype=float)
    variance = pd.Series(values, index=rows.index).groupby(rows["worker_id"]).var(ddof=1)
    off_middle = np.abs(values - scale.midpoint) > 1e-9
    rows, values = rows[off_middle], values[off_middle]
    low, high = scale.min + inset, scale.max - inset
    near = (np.abs(values - low) <= tolerance) | (np.abs(values - high) <= tolerance)
    grouped = pd.Series(near, index=rows.index).astype(float).groupby(rows["worker_id"])
    share = grouped.mean()
    varies = variance.reindex(share.index) > min_variance * scale_factor(context)
    return result(
        workers_of(judgments), share, grouped.size(), (share > SHARE) & varies, variance=variance
    )


def radical(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values (midpoint left out) at the two ends; marked above one half."""
    return _share_near(judgments, context, 0.0, 1e-9, MIN_VARIANCE)


def centrist(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values (midpoint left out) near the points a quarter of the range
    in from the ends; marked above one half."""
    scale = context.scale
    span = scale.max - scale.min
    width = max(CENTRIST_WIDTH * span, scale.step / 2) + 1e-9
    return _share_near(judgments, context, CENTRIST_INSET * span, width, CENTRIST_MIN_VARIANCE)
