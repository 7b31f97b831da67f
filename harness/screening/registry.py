"""The screening heuristics by catalogue key (H1-H13), plus the report-only extremes.

Keys and codes come from `harness.spec.heuristics.CATALOGUE`; every catalogue entry has exactly
one implementation here (a test checks it). `resolve` accepts a key or a code.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.screening.context import ScreeningContext
from harness.screening.controls import calibration_failure, gold_failure, high_random
from harness.screening.correlation import consensus_correlation, low_correlation
from harness.screening.disagreement import disagreeable
from harness.screening.extremes import centrist, radical
from harness.screening.machine import machine_agreement
from harness.screening.page import hidden_answers
from harness.screening.timing import quick, slow, steady_timing
from harness.screening.variance import control_group_variance, low_variance
from harness.spec.heuristics import CATALOGUE, HeuristicKey, resolve_heuristic

Heuristic = Callable[[pd.DataFrame, ScreeningContext], pd.DataFrame]

HEURISTICS: dict[HeuristicKey, Heuristic] = {
    HeuristicKey.SLOW: slow,
    HeuristicKey.QUICK: quick,
    HeuristicKey.LOW_VARIANCE: low_variance,
    HeuristicKey.HIGH_RANDOM: high_random,
    HeuristicKey.DISAGREEABLE: disagreeable,
    HeuristicKey.CONTROL_GROUP_VARIANCE: control_group_variance,
    HeuristicKey.LOW_CORRELATION: low_correlation,
    HeuristicKey.CONSENSUS_CORRELATION: consensus_correlation,
    HeuristicKey.GOLD_FAILURE: gold_failure,
    HeuristicKey.CALIBRATION_FAILURE: calibration_failure,
    HeuristicKey.MACHINE_AGREEMENT: machine_agreement,
    HeuristicKey.HIDDEN_ANSWERS: hidden_answers,
    HeuristicKey.STEADY_TIMING: steady_timing,
}
"""Catalogue key -> implementation, in catalogue order (H1..H13)."""

REPORT_ONLY: dict[str, Heuristic] = {"radical": radical, "centrist": centrist}
"""Reported, never used to filter: not in the catalogue, no policy applies."""

assert list(HEURISTICS) == [h.key for h in CATALOGUE]


def resolve(name: str) -> str:
    """The key of a heuristic named by key or code (``H3`` -> ``low_variance``); else KeyError.

    ``radical`` and ``centrist`` resolve to themselves.
    """
    if name in REPORT_ONLY:
        return name
    return resolve_heuristic(name.strip()).key


def get(name: str) -> Heuristic:
    """The implementation of the heuristic named by key or code."""
    key = resolve(name)
    return REPORT_ONLY.get(key) or HEURISTICS[HeuristicKey(key)]
