"""Worker-level screening (docs/methods.md section 4): heuristics H1-H13 and the extremes report.

Each heuristic is a pure function ``(judgments, context) -> DataFrame[worker_id, score,
evidence, flag]`` over the long judgment table; `screen_workers` runs several and combines them
under the spec's policy; `screening_impact` shows the figures after every subset of them.
Live screening of a stored study, assignment by assignment, is in `harness.screening.live`
(`screen_assignment`, `pending_decisions`).
"""

from harness.screening.context import RESULT_COLUMNS, ScreeningContext
from harness.screening.controls import calibration_failure, gold_failure, high_random
from harness.screening.correlation import consensus_correlation, low_correlation
from harness.screening.disagreement import disagreeable
from harness.screening.extremes import centrist, radical
from harness.screening.impact import screening_impact
from harness.screening.machine import machine_agreement
from harness.screening.page import hidden_answers
from harness.screening.registry import HEURISTICS, REPORT_ONLY, get, resolve
from harness.screening.report import ScreeningReport, screen_workers
from harness.screening.timing import quick, slow, steady_timing
from harness.screening.variance import control_group_variance, low_variance, low_variance_absolute

__all__ = [
    "HEURISTICS",
    "REPORT_ONLY",
    "RESULT_COLUMNS",
    "ScreeningContext",
    "ScreeningReport",
    "calibration_failure",
    "centrist",
    "consensus_correlation",
    "control_group_variance",
    "disagreeable",
    "get",
    "gold_failure",
    "hidden_answers",
    "high_random",
    "low_correlation",
    "low_variance",
    "low_variance_absolute",
    "machine_agreement",
    "quick",
    "radical",
    "resolve",
    "screen_workers",
    "screening_impact",
    "slow",
    "steady_timing",
]
