"""Radical and centrist workers: reported, never used to filter (docs/methods.md section 4).

Radical: more than half the worker's values at the two scale ends. Centrist: more than half one
step in from the ends. As published, the shares leave out values at the scale's midpoint (a
"no opinion" answer says nothing about how a worker uses the ends), and only workers whose
values vary, sample variance above 1 on a 1-5 scale (scaled by (range / 4)^2 on others, as H6),
are marked: a straight-liner's values are all at one point, which is H3's concern. Scores are
the shares over the worker's real items; ``variance`` is reported beside them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, content, result, workers_of
from harness.screening.variance import scale_factor

SHARE = 0.5
MIN_VARIANCE = 1.0  # on a 1-5 scale; workers at or below it are not marked


def _share_near(judgments: pd.DataFrame, context: ScreeningContext, inset: float) -> pd.DataFrame:
    scale = context.scale
    rows = content(judgments, context)
    values = rows["value"].to_numpy(dtype=float)
    variance = pd.Series(values, index=rows.index).groupby(rows["worker_id"]).var(ddof=1)
    off_middle = np.abs(values - scale.midpoint) > 1e-9
    rows, values = rows[off_middle], values[off_middle]
    low, high = scale.min + inset, scale.max - inset
    tolerance = scale.step / 2 if inset else 1e-9
    near = (np.abs(values - low) < tolerance) | (np.abs(values - high) < tolerance)
    grouped = pd.Series(near, index=rows.index).astype(float).groupby(rows["worker_id"])
    share = grouped.mean()
    varies = variance.reindex(share.index) > MIN_VARIANCE * scale_factor(context)
    return result(
        workers_of(judgments), share, grouped.size(), (share > SHARE) & varies, variance=variance
    )


def radical(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values (midpoint left out) at the two ends; marked above one half."""
    return _share_near(judgments, context, 0.0)


def centrist(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values (midpoint left out) one step in from the ends; marked above
    one half."""
    return _share_near(judgments, context, context.scale.step)
