"""Reliability verdicts on alpha, after Krippendorff (2004, *Content Analysis*, 2nd ed., p. 241).

"Rely only on variables with reliabilities above alpha = .800. Consider variables with
reliabilities between alpha = .667 and alpha = .800 only for drawing tentative conclusions."
METHODS.md section 5 adopts these cut-offs, and asks for a warning whenever the bootstrap
interval reaches below the smallest acceptable alpha (alpha_min, default 0.667).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

RELIABLE_AT = 0.800
TENTATIVE_AT = 0.667
DEFAULT_ALPHA_MIN = 0.667


class Verdict(StrEnum):
    """What a reliability figure allows."""

    RELIABLE = "reliable"
    TENTATIVE = "tentative"
    UNRELIABLE = "unreliable"


def verdict(alpha: float) -> Verdict:
    """alpha >= 0.800 reliable; 0.667 <= alpha < 0.800 tentative; below 0.667 unreliable."""
    if alpha >= RELIABLE_AT:
        return Verdict.RELIABLE
    if alpha >= TENTATIVE_AT:
        return Verdict.TENTATIVE
    return Verdict.UNRELIABLE


def study_alpha_min(stored: float | None, spec: Mapping[str, Any]) -> float:
    """A study's smallest acceptable alpha: the one stored with the study, else its frozen
    spec's (a study stored before the column existed), else the default."""
    if stored is not None:
        return float(stored)
    return float(spec.get("alpha_min", DEFAULT_ALPHA_MIN))


def interval_warning(ci_low: float, alpha_min: float = DEFAULT_ALPHA_MIN) -> str | None:
    """A warning when the interval's low end lies below alpha_min, else None."""
    if ci_low < alpha_min:
        return (
            f"the interval reaches below alpha_min = {alpha_min:.3f} (low end {ci_low:.3f}): "
            "the data may not reach the required reliability"
        )
    return None
