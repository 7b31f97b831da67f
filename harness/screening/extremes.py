"""Radical and centrist workers: reported, never used to filter (docs/methods.md section 4).

Radical: more than half the worker's values at the two scale ends. Centrist: more than half one
step in from the ends. Scores are those shares over the worker's real items.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, content, result, workers_of

SHARE = 0.5


def _share_near(judgments: pd.DataFrame, context: ScreeningContext, inset: float) -> pd.DataFrame:
    scale = context.scale
    rows = content(judgments, context)
    low, high = scale.min + inset, scale.max - inset
    tolerance = scale.step / 2 if inset else 1e-9
    values = rows["value"].to_numpy()
    near = (np.abs(values - low) < tolerance) | (np.abs(values - high) < tolerance)
    grouped = pd.Series(near, index=rows.index).astype(float).groupby(rows["worker_id"])
    share = grouped.mean()
    return result(workers_of(judgments), share, grouped.size(), share > SHARE)


def radical(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values at the two ends of the scale; flag above one half."""
    return _share_near(judgments, context, 0.0)


def centrist(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Share of the worker's values one step in from the ends; flag above one half."""
    return _share_near(judgments, context, context.scale.step)
