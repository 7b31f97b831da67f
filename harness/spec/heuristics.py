"""The catalogue of screening heuristics a spec may name, with docs/methods.md section 4's defaults.

The spec declares the policy (threshold and action per heuristic) before launch; the screening
stage implements the heuristics and reads their thresholds from here. Keys are the names; the
codes H1-H10 are accepted wherever a user names heuristics on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HeuristicInfo:
    code: str
    key: str
    default_threshold: float
    objective: bool  # an objective failure, for which rejecting an assignment is fair
    meaning: str
    per_assignment: bool = False  # judged per assignment (H7): rejecting the failing one is fair


CATALOGUE: tuple[HeuristicInfo, ...] = (
    HeuristicInfo("H1", "slow", 300.0, False, "mean seconds per item above the threshold"),
    HeuristicInfo("H2", "quick", 2.0, True, "median seconds per item below the threshold"),
    HeuristicInfo(
        "H3",
        "low_variance",
        0.25,
        False,
        "variance of the worker's values below this share of the consensus variance",
    ),
    HeuristicInfo(
        "H4",
        "high_random",
        0.0,
        False,
        "mean on random pairs minus mean on other items above the threshold",
    ),
    HeuristicInfo(
        "H5",
        "disagreeable",
        0.5,
        False,
        "share of agreeing pairs of co-raters whose side the worker does not share, above "
        "the threshold",
    ),
    HeuristicInfo(
        "H6",
        "control_group_variance",
        1.0,
        False,
        "variance within a control group above the threshold (1-5 scale units)",
    ),
    HeuristicInfo(
        "H7",
        "low_correlation",
        0.3,
        False,
        "an assignment's mean of its three best correlations with other workers below the "
        "threshold",
        per_assignment=True,
    ),
    HeuristicInfo(
        "H8",
        "consensus_correlation",
        0.3,
        False,
        "correlation with the leave-one-out consensus below the threshold",
    ),
    HeuristicInfo(
        "H9",
        "gold_failure",
        0.5,
        True,
        "share of gold items missed by more than one step above the threshold",
    ),
    HeuristicInfo(
        "H10",
        "calibration_failure",
        1 / 3,
        True,
        "share of failed identical-pair or repeated-item checks above the threshold (more "
        "than a third, with at least 4 checks)",
    ),
)

BY_KEY = {h.key: h for h in CATALOGUE}
BY_CODE = {h.code: h for h in CATALOGUE}


def resolve_heuristic(name: str) -> HeuristicInfo:
    """The heuristic named by key (``low_variance``) or code (``H3``); KeyError otherwise."""
    found = BY_KEY.get(name) or BY_CODE.get(name.upper())
    if found is None:
        raise KeyError(name)
    return found
