"""Controls passed in each arm of a study (issue #18): the share of control checks passed,
with Wilson's interval, and its difference from the base arm with Newcombe's interval.

A check is one answer to a pass/fail control: an identical pair, a repeated item (the two
showings), a gold item (`harness.screening.controls.control_checks`, with H9's and H10's
tolerances). Every worker of an arm counts, screened out or not: screening excludes workers
*for* failing these checks, so after screening the share would measure the screening policy
rather than how attentive the arm's design keeps its workers (the share screened out is a
figure of its own). Both intervals treat the checks as independent; the checks of one worker
are not (a careless worker fails many), so with few workers per arm the intervals are too
narrow. `harness.stats.proportions` has the formulas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from harness.errors import JudgmentsError
from harness.stats.proportions import newcombe_difference, wilson_interval


@dataclass(frozen=True)
class ArmControls:
    """One arm's control checks: passed of checked, by how many workers, the share passed with
    its interval, and (other arms) its difference from the base with an interval."""

    arm: str
    checks: int
    passed: int
    workers: int  # workers with at least one check
    share: float | None  # None: no checks in this arm
    low: float | None
    high: float | None
    difference: float | None = None  # share - the base's share; None for the base
    diff_low: float | None = None
    diff_high: float | None = None
    by_control: dict[str, list[int]] = field(default_factory=dict)  # control -> [passed, checks]


def controls_passed(
    checks: pd.DataFrame, arms: Sequence[str], confidence: float = 0.95
) -> list[ArmControls]:
    """Per arm of ``arms`` (the first is the base), the checks of ``checks`` (``arm,
    worker_id, passed[, control]``: one row per check) passed, with the intervals of the
    module docstring."""
    missing = [c for c in ("arm", "worker_id", "passed") if c not in checks.columns]
    if missing:
        raise JudgmentsError(f"control checks: missing column(s) {', '.join(missing)}")
    table = checks.astype({"arm": str})
    out: list[ArmControls] = []
    for arm in arms:
        rows = table[table["arm"] == arm]
        passed = rows["passed"].astype(bool)
        n, k = len(rows), int(passed.sum())
        by_control = {}
        if "control" in rows.columns:
            for control, part in passed.groupby(rows["control"], sort=True):
                by_control[str(control)] = [int(part.sum()), len(part)]
        low, high = wilson_interval(k, n, confidence) if n else (None, None)
        figures = ArmControls(
            arm,
            n,
            k,
            int(rows["worker_id"].nunique()),
            k / n if n else None,
            low,
            high,
            by_control=by_control,
        )
        base = out[0] if out else None
        if base is not None and base.checks and n:
            d, d_low, d_high = newcombe_difference(k, n, base.passed, base.checks, confidence)
            figures = replace(figures, difference=d, diff_low=d_low, diff_high=d_high)
        out.append(figures)
    return out
