"""Snap raw simulated answers onto a study's scale: clip to its ends, round to its grain.

A simulated answer must be one a real worker could give (``Scale.accepts``): the nearest option
on a Likert or pair-comparison scale, else the nearest step between ``min`` and ``max``. The
rule itself is `Scale.snap`, which the study types use for their simulated answers.
"""

from __future__ import annotations

import numpy as np

from harness.spec.scale import Scale


def snap(values: np.ndarray, scale: Scale) -> np.ndarray:
    """``values`` moved to the nearest answer the scale accepts (options, else steps)."""
    return scale.snap(values)
