"""What a model-assisted worker answers from: a system's scores rescaled to the study's scale.

A worker who asks a language model for each rating gets answers that follow the model's
ordering of the items, spread over the scale as people's answers are. harness has no model to
run; a bundled system's predictions (`harness.datasets.systems`) stand in for one: rescaled
linearly so that, over the items, their mean and standard deviation are the latent truths'
(an assistant asked for a 0-10 rating uses the scale as people do), clipped to the scale.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.spec.scale import Scale


def machine_answers(scores: pd.Series, truths: pd.Series, scale: Scale) -> pd.Series:
    """item_id -> the system's answer on ``scale``, for the items of ``truths`` it scores."""
    scores = scores.copy()
    scores.index = scores.index.astype(str)
    shared = scores.reindex(truths.index.astype(str)).dropna()
    if len(shared) < 2 or float(shared.std()) == 0.0:
        raise ValueError("a machine needs scores that vary over at least two of the items")
    target = truths.set_axis(truths.index.astype(str)).reindex(shared.index).to_numpy(dtype=float)
    z = (shared - shared.mean()) / shared.std()
    rescaled = float(np.mean(target)) + z * float(np.std(target, ddof=1))
    return rescaled.clip(scale.min, scale.max)
