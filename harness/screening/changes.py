"""Which screening flags changed: score frames and the last stored flags in, changes out.

Pure: the store keeps what this returns (`harness.store.decisions.add_decisions`). A decision
is made for each (worker, heuristic) whose flag differs from its last stored decision (a flag
raised, or cleared), with its score, evidence, the threshold it was compared with (on the
study's scale) and the policy's action. A heuristic judged per assignment (H7, as batch
screening judges it) is decided per (worker, assignment): each failing assignment has a
decision of its own, which is what a ``reject`` applies to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.screening.context import ScreeningContext
from harness.screening.report import json_value
from harness.screening.variance import scale_factor
from harness.spec.heuristics import HeuristicKey
from harness.spec.model import Action


@dataclass(frozen=True)
class DecisionChange:
    """A flag that changed since the last stored decision of its (worker, heuristic).
    ``worker_pk`` and ``assignment_pk`` are the store's ids."""

    worker_pk: int
    assignment_pk: int | None
    heuristic: HeuristicKey
    score: float | None
    evidence: int
    threshold: float | None
    flag: bool
    action: Action
    details: dict[str, Any]


def effective_threshold(key: str, context: ScreeningContext) -> float:
    """The threshold a heuristic compares with, on the study's scale (H6 is scaled)."""
    threshold = context.threshold(key)
    if key == HeuristicKey.CONTROL_GROUP_VARIANCE:
        return threshold * scale_factor(context)
    return threshold


def flag_changes(
    results: Mapping[HeuristicKey, pd.DataFrame],
    previous: Mapping[tuple[int, HeuristicKey, int | None], bool],
    context: ScreeningContext,
    *,
    worker_pk: Mapping[str, int],
    assignment_of: Callable[[str], int | None],
    details: Mapping[str, Any],
    unit_assignment: Mapping[str, int],
) -> list[DecisionChange]:
    """A `DecisionChange` per decision key whose flag differs from ``previous`` (the last
    stored flag per (worker store id, heuristic, assignment store id of a heuristic judged per
    assignment, else None); none stored counts as not flagged).

    ``results``: per heuristic key, its result frame (``worker_id, score, evidence, flag`` and
    extra columns, which go into the details); a frame with a ``unit`` column (H7 per
    assignment) has a row per (worker, assignment), ``unit_assignment`` giving a unit's store
    id. ``assignment_of``: the assignment (store id) a worker's decision is about.
    ``details``: what every decision records about the update (e.g. the assignments it took
    in).
    """
    changes = []
    for key, frame in results.items():
        for record in frame.to_dict(orient="records"):
            name = str(record.pop("worker_id"))
            pk = worker_pk[name]
            flag = bool(record.pop("flag"))
            if "unit" in record:
                unit = str(record.pop("unit"))
                assignment = unit_assignment.get(unit)
                about: tuple[int, HeuristicKey, int | None] = (pk, key, assignment)
                record["assignment"] = unit
            else:
                assignment = assignment_of(name)
                about = (pk, key, None)
            if previous.get(about, False) == flag:
                continue
            score = json_value(record.pop("score"))
            evidence = int(record.pop("evidence"))
            extra = {str(k): json_value(v) for k, v in record.items()}
            extra.update(details, change="raised" if flag else "cleared")
            changes.append(
                DecisionChange(
                    worker_pk=pk,
                    assignment_pk=assignment,
                    heuristic=key,
                    score=score,
                    evidence=evidence,
                    threshold=effective_threshold(key, context),
                    flag=flag,
                    action=context.action(key),
                    details=extra,
                )
            )
    return changes
