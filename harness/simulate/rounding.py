"""Snap raw simulated answers onto a study's scale: clip to its ends, round to its grain.

A simulated answer must be one a real worker could give (``Scale.accepts``): the nearest option
on a Likert or pair-comparison scale, else the nearest step between ``min`` and ``max``.
"""

from __future__ import annotations

import numpy as np

from harness.spec.scale import Scale


def snap(values: np.ndarray, scale: Scale) -> np.ndarray:
    """``values`` moved to the nearest answer the scale accepts (options, else steps)."""
    raw = np.clip(np.asarray(values, dtype=float), scale.min, scale.max)
    if scale.options:
        options = np.array(sorted(v for v, _, _ in scale.options))
        nearest = np.abs(raw[:, None] - options[None, :]).argmin(axis=1)
        return np.asarray(options[nearest], dtype=float)
    steps = np.round((raw - scale.min) / scale.step)
    snapped = np.clip(scale.min + steps * scale.step, scale.min, scale.max)
    return np.round(snapped, max(scale.decimals, 9))
