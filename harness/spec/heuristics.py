"""The catalogue of screening heuristics a spec may name, with docs/methods.md section 4's defaults.

The spec declares the policy (threshold and action per heuristic) before launch; the screening
stage implements the heuristics and reads their thresholds from here. Keys are the names; the
codes H1-H13 are accepted wherever a user names heuristics on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class HeuristicKey(StrEnum):
    """The catalogue's heuristics by key (docs/methods.md section 4), in order H1..H13: what a
    screening decision names (its ``heuristic`` column, stored by value)."""

    SLOW = "slow"
    QUICK = "quick"
    LOW_VARIANCE = "low_variance"
    HIGH_RANDOM = "high_random"
    DISAGREEABLE = "disagreeable"
    CONTROL_GROUP_VARIANCE = "control_group_variance"
    LOW_CORRELATION = "low_correlation"
    CONSENSUS_CORRELATION = "consensus_correlation"
    GOLD_FAILURE = "gold_failure"
    CALIBRATION_FAILURE = "calibration_failure"
    MACHINE_AGREEMENT = "machine_agreement"
    HIDDEN_ANSWERS = "hidden_answers"
    STEADY_TIMING = "steady_timing"


@dataclass(frozen=True)
class HeuristicInfo:
    code: str
    key: HeuristicKey
    default_threshold: float
    objective: bool  # an objective failure, for which rejecting an assignment is fair
    meaning: str
    per_assignment: bool = False  # judged per assignment (H7): rejecting the failing one is fair


CATALOGUE: tuple[HeuristicInfo, ...] = (
    HeuristicInfo(
        "H1", HeuristicKey.SLOW, 300.0, False, "mean seconds per item above the threshold"
    ),
    HeuristicInfo(
        "H2", HeuristicKey.QUICK, 2.0, True, "median seconds per item below the threshold"
    ),
    HeuristicInfo(
        "H3",
        HeuristicKey.LOW_VARIANCE,
        0.25,
        False,
        "variance of the worker's values below this share of the consensus variance",
    ),
    HeuristicInfo(
        "H4",
        HeuristicKey.HIGH_RANDOM,
        0.0,
        False,
        "mean on random pairs minus mean on other items above the threshold",
    ),
    HeuristicInfo(
        "H5",
        HeuristicKey.DISAGREEABLE,
        0.5,
        False,
        "share of agreeing pairs of co-raters whose side the worker does not share, above "
        "the threshold",
    ),
    HeuristicInfo(
        "H6",
        HeuristicKey.CONTROL_GROUP_VARIANCE,
        1.0,
        False,
        "variance within a control group above the threshold (1-5 scale units)",
    ),
    HeuristicInfo(
        "H7",
        HeuristicKey.LOW_CORRELATION,
        0.3,
        False,
        "an assignment's mean of its three best correlations with other workers below the "
        "threshold",
        per_assignment=True,
    ),
    HeuristicInfo(
        "H8",
        HeuristicKey.CONSENSUS_CORRELATION,
        0.3,
        False,
        "correlation with the leave-one-out consensus below the threshold",
    ),
    HeuristicInfo(
        "H9",
        HeuristicKey.GOLD_FAILURE,
        0.5,
        True,
        "share of gold items missed by more than one step above the threshold",
    ),
    HeuristicInfo(
        "H10",
        HeuristicKey.CALIBRATION_FAILURE,
        0.17,
        True,
        "failed identical-pair or repeated-item checks more than a careful worker's failure "
        "rate (the threshold) explains: one-sided binomial p < 0.01 (a spec's own threshold "
        "flags any share above it instead; 0 is the published any failure)",
    ),
    HeuristicInfo(
        "H11",
        HeuristicKey.MACHINE_AGREEMENT,
        0.0,
        False,
        "Spearman rho with the closest machine reference minus rho with the leave-one-out "
        "human consensus, above the threshold",
    ),
    HeuristicInfo(
        "H12",
        HeuristicKey.HIDDEN_ANSWERS,
        0.1,
        False,
        "share of answers given while the task page was hidden, above the threshold",
    ),
    HeuristicInfo(
        "H13",
        HeuristicKey.STEADY_TIMING,
        0.2,
        False,
        "coefficient of variation of the seconds per item below the threshold (at least 10 "
        "timed items)",
    ),
)

BY_KEY: dict[str, HeuristicInfo] = {h.key: h for h in CATALOGUE}  # by enum members
BY_CODE: dict[str, HeuristicInfo] = {h.code: h for h in CATALOGUE}


def resolve_heuristic(name: str) -> HeuristicInfo:
    """The heuristic named by key (``low_variance``) or code (``H3``); KeyError otherwise."""
    found = BY_KEY.get(name) or BY_CODE.get(name.upper())
    if found is None:
        raise KeyError(name)
    return found


assert [h.key for h in CATALOGUE] == list(HeuristicKey)


DecisionKey = tuple[int, HeuristicKey, int | None]


def decision_key(worker: int, heuristic: HeuristicKey, assignment: int | None) -> DecisionKey:
    """What a decision is about: its worker and heuristic, and its assignment when the
    heuristic is judged per assignment (H7): each assignment's flag is then its own."""
    info = BY_KEY.get(heuristic)
    return (worker, heuristic, assignment if info is not None and info.per_assignment else None)
