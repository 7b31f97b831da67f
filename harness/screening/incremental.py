"""Screening scores kept up to date as judgments arrive, without rescoring the whole study.

Pure: tables in, score frames out; no database. `IncrementalScores` holds a study's rows by
worker and by item, the per-item aggregates (`ItemAggregates`) and H7's score per
assignment. `add` takes newly stored rows and refreshes only the aggregates of the items they
touch; `scores` rescores only the workers an update can have moved (the workers with new rows
on every heuristic of the policy, and on the agreement heuristics (H3, H5, H7, H8, H11) every other
worker who rated the same items, since the consensus of those items moved). It uses the same
functions as batch screening, so live and batch scores agree exactly.

The caller (`harness.screening.live`) decides which rows to add; the scores depend only on the
set of rows added, not on the batches they came in (up to the order of floating-point sums).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from harness.roles import ItemRole
from harness.screening.aggregates import ItemAggregates, cells
from harness.screening.context import ScreeningContext, answered
from harness.screening.correlation import (
    consensus_correlation_of,
    low_correlation_of,
    unit_correlations,
    unit_flags,
    with_units,
)
from harness.screening.disagreement import disagreeable_of
from harness.screening.machine import machine_agreement_of
from harness.screening.registry import HEURISTICS
from harness.screening.report import json_value
from harness.screening.rowstore import Codes, RowStore
from harness.screening.variance import low_variance_of
from harness.spec.heuristics import HeuristicKey, resolve_heuristic

AGREEMENT = (
    HeuristicKey.LOW_VARIANCE,
    HeuristicKey.DISAGREEABLE,
    HeuristicKey.LOW_CORRELATION,
    HeuristicKey.CONSENSUS_CORRELATION,
    HeuristicKey.MACHINE_AGREEMENT,
)
"""Heuristics whose scores depend on other workers' answers to the same items."""

ROW_COLUMNS = (
    "judgment_pk",
    "item_id",
    "worker_id",
    "value",
    "skipped",
    "assignment_id",
    "position",
    "seconds",
    "role",
    "answered_hidden",
    "worker_pk",
    "assignment_pk",
)
ROW_TYPES = {"value": "float64", "seconds": "float64", "skipped": "bool", "position": "int64"}
CONTENT_COLUMNS = ("item_id", "worker_id", "value", "unit")
CONTENT_TYPES = {"item_id": "int64", "worker_id": "int64", "value": "float64"}
CONTENT_INDEXES = ("worker_id", "item_id", "unit")
_EMPTY_CONTENT = pd.DataFrame(columns=list(CONTENT_COLUMNS))


@dataclass
class IncrementalScores:
    """One study's screening state (see the module docstring).

    ``rows``: every added judgment, by worker and assignment. ``content``: the answered real
    items with H7's ``unit``, by worker, item and unit, workers and items as integer codes
    (``workers``, ``items``) so that grouping is cheap. ``aggregates``: per item code (H3,
    H5, H8). ``unit_scores``: H7 per worker code, per assignment: (score, evidence).
    ``assignments``: the store ids of every assignment added.
    """

    context: ScreeningContext
    keys: list[HeuristicKey] = field(default_factory=list)
    rows: RowStore = field(
        default_factory=lambda: RowStore(ROW_COLUMNS, ROW_TYPES, ["worker_id", "assignment_pk"])
    )
    content: RowStore = field(
        default_factory=lambda: RowStore(CONTENT_COLUMNS, CONTENT_TYPES, CONTENT_INDEXES)
    )
    items: Codes = field(default_factory=Codes)
    workers: Codes = field(default_factory=Codes)
    aggregates: ItemAggregates | None = None
    unit_scores: dict[Any, dict[Any, tuple[float, int]]] | None = None
    assignments: set[int] = field(default_factory=set)
    worker_pk: dict[str, int] = field(default_factory=dict)
    worker_name: dict[int, str] = field(default_factory=dict)
    latest_assignment: dict[str, int] = field(default_factory=dict)
    unit_assignment: dict[str, int] = field(default_factory=dict)  # H7 unit -> store id

    @classmethod
    def of(cls, context: ScreeningContext, rows: pd.DataFrame) -> IncrementalScores:
        """The state of a study from ``rows`` (every judgment stored so far; one full pass)."""
        keys = list(dict.fromkeys(resolve_heuristic(name.strip()).key for name in context.policy))
        state = cls(context, keys)
        content = state._ingest(rows)
        state.aggregates = ItemAggregates.of(content, context.scale.midpoint)
        if context.items is not None:
            state.aggregates.cover(pd.Index(state.items.encode(context.items["item_id"])))
        if HeuristicKey.LOW_CORRELATION in keys:
            state.unit_scores = {}
            state._keep_unit_scores(unit_correlations(content))
        return state

    def add(self, rows: pd.DataFrame, assignments: set[int]) -> None:
        """Take in the rows of newly stored ``assignments`` (store ids; some may have no rows)."""
        new = set(assignments) - self.assignments
        rows = rows[rows["assignment_pk"].isin(new)]
        self.assignments |= new
        if len(rows):
            self._refresh(self._ingest(rows))

    def scores(
        self, own: set[str], units: set[str], *, per_assignment: bool = False
    ) -> dict[HeuristicKey, pd.DataFrame]:
        """Per heuristic key of the policy: its result frame for the workers it may have moved.

        Own-answer heuristics are scored for ``own`` (workers with new rows); agreement
        heuristics for those and every co-rater of the items of ``units`` (H7 units:
        assignments). ``per_assignment``: H7 as `assignment_flags` judges it, a row per
        (worker, assignment), as live screening decides it; else a row per worker.
        """
        out: dict[HeuristicKey, pd.DataFrame] = {}
        own_keys = [k for k in self.keys if k not in AGREEMENT]
        if own_keys and own:
            rows = self.rows.rows("worker_id", sorted(own))
            for key in own_keys:
                # H1's percentile ranks among the workers scored: meaningless for a few
                frame = HEURISTICS[key](rows, self.context)
                out[key] = frame.drop(columns=["percentile"], errors="ignore")
        agreement = [k for k in self.keys if k in AGREEMENT]
        affected = self._affected(own, units)
        if agreement and affected:
            out.update(self._agreement_scores(agreement, affected, per_assignment))
        return {key: out[key] for key in self.keys if key in out}

    def assignment_flags(self, names: list[str]) -> pd.DataFrame:
        """H7 per assignment of the workers ``names`` (as batch screening judges it,
        `harness.screening.correlation.low_correlation_assignments`): ``worker_id, unit,
        score, evidence, flag``, from the unit scores kept up to date by `add`."""
        assert self.unit_scores is not None
        rows = [
            (name, unit, score, evidence)
            for name, code in zip(names, self.workers.encode(names), strict=True)
            for unit, (score, evidence) in self.unit_scores.get(code, {}).items()
        ]
        worker, unit, score, evidence = zip(*rows, strict=True) if rows else ((), (), (), ())
        per_unit = pd.DataFrame(
            {
                "worker_id": np.array(worker, dtype=object),
                "unit": np.array(unit, dtype=object),
                "score": np.array(score, dtype=float),
                "evidence": np.array(evidence, dtype=int),
            }
        )
        return unit_flags(per_unit, self.context)

    def consensus_rho(self, names: list[str]) -> dict[str, Any]:
        """H8's leave-one-out Spearman rho of the workers ``names`` (for decision details)."""
        assert self.aggregates is not None
        workers = pd.Index(self.workers.encode(names), name="worker_id")
        rows = self.content.rows("worker_id", workers)
        frame = consensus_correlation_of(workers, cells(rows), self.aggregates.totals, self.context)
        return {n: json_value(r) for n, r in zip(names, frame["rho"], strict=True)}

    def _affected(self, own: set[str], units: set[str]) -> set[int]:
        """The codes of ``own`` workers and of every co-rater of the items of ``units``."""
        items = set(self.content.values("item_id", "unit", units))
        return set(self.workers.encode(own)) | set(
            self.content.values("worker_id", "item_id", items)
        )

    def _agreement_scores(
        self, keys: list[HeuristicKey], affected: set[int], per_assignment: bool
    ) -> dict[HeuristicKey, pd.DataFrame]:
        workers = pd.Index(sorted(affected), name="worker_id")
        names = self.workers.decode(workers)
        rows = self.content.rows("worker_id", workers)
        cell = cells(rows)
        assert self.aggregates is not None
        out: dict[HeuristicKey, pd.DataFrame] = {}
        if HeuristicKey.LOW_VARIANCE in keys:
            consensus = self.aggregates.consensus
            out[HeuristicKey.LOW_VARIANCE] = low_variance_of(workers, rows, consensus, self.context)
        if HeuristicKey.DISAGREEABLE in keys:
            counts = self.aggregates.sides
            out[HeuristicKey.DISAGREEABLE] = disagreeable_of(workers, cell, counts, self.context)
        if HeuristicKey.LOW_CORRELATION in keys and not per_assignment:
            assert self.unit_scores is not None
            mine = pd.DataFrame(
                [
                    (worker, unit, score, evidence)
                    for worker in workers
                    for unit, (score, evidence) in self.unit_scores.get(worker, {}).items()
                ],
                columns=["worker_id", "unit", "score", "evidence"],
            )
            out[HeuristicKey.LOW_CORRELATION] = low_correlation_of(workers, mine, self.context)
        if HeuristicKey.CONSENSUS_CORRELATION in keys:
            totals = self.aggregates.totals
            out[HeuristicKey.CONSENSUS_CORRELATION] = consensus_correlation_of(
                workers, cell, totals, self.context, with_rho=False
            )
        if HeuristicKey.MACHINE_AGREEMENT in keys:
            out[HeuristicKey.MACHINE_AGREEMENT] = machine_agreement_of(
                workers, cell, self.aggregates.totals, self.context, self._coded_references()
            )
        for frame in out.values():  # each frame has a row per worker of ``workers``, in order
            frame["worker_id"] = names
        if HeuristicKey.LOW_CORRELATION in keys and per_assignment:
            out[HeuristicKey.LOW_CORRELATION] = self.assignment_flags(names)
        return out

    def _coded_references(self) -> dict[str, pd.Series]:
        """H11's references by item code (the study's items only; a fresh study's items all
        have codes, `of` gives them)."""
        known = dict(zip(self.items.names, range(len(self.items.names)), strict=True))
        coded = {}
        for name, scores in self.context.references.items():
            ids = pd.Index(scores.index.astype(str))
            keep = ids.isin(list(known))
            codes = [known[i] for i in ids[keep]]
            coded[name] = pd.Series(scores.to_numpy(dtype=float)[keep], index=codes)
        return coded

    def _ingest(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Add stored rows to the row stores; return their content rows."""
        if rows.empty:
            return _EMPTY_CONTENT
        rows = rows.assign(
            worker_id=rows["worker_id"].astype(str),
            value=pd.to_numeric(rows["value"], errors="coerce").astype(float),
            seconds=pd.to_numeric(rows["seconds"], errors="coerce").astype(float),
            skipped=rows["skipped"].fillna(False).astype(bool),
        ).sort_values("judgment_pk", kind="stable")
        self.rows.append(rows)
        ids = zip(
            rows["worker_id"].tolist(),
            rows["worker_pk"].tolist(),
            rows["assignment_id"].tolist(),
            rows["assignment_pk"].tolist(),
            strict=True,
        )
        for name, worker, unit, assignment in ids:
            self.assignments.add(assignment)
            self.worker_pk[name] = worker
            self.worker_name[worker] = name
            self.latest_assignment[name] = max(assignment, self.latest_assignment.get(name, 0))
            self.unit_assignment[str(unit)] = assignment
        content = _content_rows(rows, self.context)
        content = content.assign(
            item_id=self.items.encode(content["item_id"]),
            worker_id=self.workers.encode(content["worker_id"]),
        )
        self.content.append(content)
        return content

    def _refresh(self, new_content: pd.DataFrame) -> None:
        """Recompute the aggregates and H7 unit scores that the new content rows touch."""
        if new_content.empty or self.aggregates is None:
            return
        touched = self.content.rows("item_id", new_content["item_id"].unique())
        self.aggregates.replace(ItemAggregates.of(touched, self.context.scale.midpoint))
        if self.unit_scores is None:
            return
        unit_names = touched["unit"].unique()
        units = set(zip(touched["worker_id"], touched["unit"], strict=True))
        items = set(self.content.values("item_id", "unit", unit_names))
        self._keep_unit_scores(unit_correlations(self.content.rows("item_id", items), units))

    def _keep_unit_scores(self, fresh: pd.DataFrame) -> None:
        assert self.unit_scores is not None
        columns = (fresh[c].tolist() for c in ("worker_id", "unit", "score", "evidence"))
        for worker, unit, score, evidence in zip(*columns, strict=True):
            self.unit_scores.setdefault(worker, {})[unit] = (score, evidence)


def _content_rows(rows: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Answered real-item rows with H7's ``unit`` (the assignment)."""
    if rows.empty:
        return _EMPTY_CONTENT
    table = answered(rows, context)
    return with_units(table[table["role"] == ItemRole.ITEM.value])
