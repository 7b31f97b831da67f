"""Live screening: decide on workers as each assignment's judgments are stored.

`screen_assignment` is called (by the web server or a sync command) after an assignment's
judgments are in the store. It updates what that assignment changes, and only that:

- the worker's own scores on every heuristic of the spec's policy;
- the agreement-based scores (H3, H5, H7, H8) of the other workers who rated the same items,
  since the consensus of those items moved.

It then stores one `ScreeningDecision` per (worker, heuristic) whose flag appeared (or
cleared) since the last stored decision, with its score, evidence, threshold and the policy's
action, ``applied=False``, and an event per decision. Applying block / reject / replace is the
review stage's job: it reads `pending_decisions` and marks them applied.

Incremental by design: a `LiveState` per study, kept in this process, holds the study's rows by
worker and by item, the per-item aggregates (`ItemAggregates`) and H7's score per assignment.
An update reads only the judgments stored since the state last looked (by judgment id) plus the
assignment itself, refreshes the aggregates of the items they touch, and scores the affected
workers with the same functions the batch heuristics use, so live and batch scores agree
exactly. The first call in a process builds the state from the whole study (one full pass).
Prior flags are read from the stored decisions, never from memory, so screening an assignment
again, or from a new process, stores nothing twice.

The state trusts that stored judgments are never changed or deleted: if the transaction that
stored an assignment is rolled back after `screen_assignment` ran, call `forget_states`. Calls
for one study are serialized within a process (a lock per state); two processes screening
workers of the same items at the same moment may each store the same change.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from sqlmodel import Session, col, select

from harness.errors import StoreError
from harness.roles import ItemRole
from harness.screening.aggregates import ItemAggregates, cells
from harness.screening.context import ScreeningContext, answered
from harness.screening.correlation import (
    consensus_correlation_of,
    low_correlation_of,
    unit_correlations,
    with_units,
)
from harness.screening.disagreement import disagreeable_of
from harness.screening.registry import HEURISTICS, resolve
from harness.screening.report import json_value
from harness.screening.rowstore import Codes, RowStore
from harness.screening.stored import study_context
from harness.screening.variance import low_variance_of, scale_factor
from harness.spec.model import Action
from harness.store.events import record_event
from harness.store.judgment_table import screening_rows
from harness.store.models import Assignment, Hit, ScreeningDecision, Study

AGREEMENT = ("low_variance", "disagreeable", "low_correlation", "consensus_correlation")
"""Heuristics whose scores depend on other workers' answers to the same items."""

DECISION_EVENT = "screening.decision"


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
    "worker_pk",
    "assignment_pk",
)
ROW_TYPES = {"value": "float64", "seconds": "float64", "skipped": "bool", "position": "int64"}
CONTENT_COLUMNS = ("item_id", "worker_id", "value", "unit")
CONTENT_TYPES = {"item_id": "int64", "worker_id": "int64", "value": "float64"}
CONTENT_INDEXES = ("worker_id", "item_id", "unit")


@dataclass
class LiveState:
    """What live screening keeps of one study between assignments (see the module docstring).

    ``rows``: every stored judgment, by worker and assignment. ``content``: the answered real
    items with H7's ``unit``, by worker, item and unit, workers and items as integer codes
    (``workers``, ``items``) so that grouping is cheap. ``aggregates``: per item code (H3,
    H5, H8). ``unit_scores``: H7 per worker code, per assignment: (score, evidence).
    """

    study_id: int
    instrument_id: int
    context: ScreeningContext
    keys: list[str]
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
    seen: set[int] = field(default_factory=set)
    last_id: int = 0
    worker_pk: dict[str, int] = field(default_factory=dict)
    worker_name: dict[int, str] = field(default_factory=dict)
    latest_assignment: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, session: Session, study: Study) -> LiveState:
        """The state of ``study`` from every judgment stored so far (one full pass)."""
        context = study_context(session, study)
        keys = [resolve(name) for name in context.policy]
        assert study.id is not None
        state = cls(study.id, study.instrument_id, context, list(dict.fromkeys(keys)))
        content = state._ingest(screening_rows(session, study.id))
        state.aggregates = ItemAggregates.of(content, context.scale.midpoint)
        if context.items is not None:
            state.aggregates.cover(pd.Index(state.items.encode(context.items["item_id"])))
        if "low_correlation" in state.keys:
            state.unit_scores = {}
            state._keep_unit_scores(unit_correlations(content))
        return state

    def catch_up(self, session: Session, assignment_pk: int) -> pd.DataFrame:
        """Read the judgments stored since the last look (and the assignment's); return the new."""
        new = screening_rows(session, self.study_id, after_id=self.last_id)
        known = self.rows.positions("assignment_pk", [assignment_pk])
        if not len(known) and assignment_pk not in set(new["assignment_pk"]):
            # committed out of id order by another writer: read the assignment itself
            own = screening_rows(session, self.study_id, assignment_id=assignment_pk)
            new = pd.concat([new, own], ignore_index=True) if len(new) else own
        new = new[~new["judgment_pk"].isin(self.seen)]
        if len(new):
            self._refresh(self._ingest(new))
        return new

    def assignment_rows(self, assignment_pk: int) -> pd.DataFrame:
        """The stored rows of one assignment."""
        return self.rows.rows("assignment_pk", [assignment_pk])

    def affected(self, own: set[str], units: set[str]) -> set[int]:
        """The codes of ``own`` workers and of every co-rater of the items of ``units``."""
        items = set(self.content.values("item_id", "unit", units))
        return set(self.workers.encode(own)) | set(
            self.content.values("worker_id", "item_id", items)
        )

    def scores(self, own: set[str], affected: set[int]) -> dict[str, pd.DataFrame]:
        """Per heuristic key of the policy: its result frame for the workers it may have moved.

        Own-answer heuristics are scored for ``own`` (the workers with new judgments),
        agreement heuristics for ``affected`` (worker codes: those and every co-rater of their
        items).
        """
        out: dict[str, pd.DataFrame] = {}
        own_keys = [k for k in self.keys if k not in AGREEMENT]
        if own_keys and own:
            rows = self.rows.rows("worker_id", sorted(own))
            for key in own_keys:
                # H1's percentile ranks among the workers scored: meaningless for a few
                frame = HEURISTICS[key](rows, self.context)
                out[key] = frame.drop(columns=["percentile"], errors="ignore")
        agreement = [k for k in self.keys if k in AGREEMENT]
        if agreement and affected:
            out.update(self._agreement_scores(agreement, affected))
        return {key: out[key] for key in self.keys if key in out}

    def _agreement_scores(self, keys: list[str], affected: set[int]) -> dict[str, pd.DataFrame]:
        workers = pd.Index(sorted(affected), name="worker_id")
        rows = self.content.rows("worker_id", workers)
        cell = cells(rows)
        assert self.aggregates is not None
        out: dict[str, pd.DataFrame] = {}
        if "low_variance" in keys:
            consensus = self.aggregates.consensus
            out["low_variance"] = low_variance_of(workers, rows, consensus, self.context)
        if "disagreeable" in keys:
            counts = self.aggregates.sides
            out["disagreeable"] = disagreeable_of(workers, cell, counts, self.context)
        if "low_correlation" in keys:
            assert self.unit_scores is not None
            mine = pd.DataFrame(
                [
                    (worker, unit, score, evidence)
                    for worker in workers
                    for unit, (score, evidence) in self.unit_scores.get(worker, {}).items()
                ],
                columns=["worker_id", "unit", "score", "evidence"],
            )
            out["low_correlation"] = low_correlation_of(workers, mine, self.context)
        if "consensus_correlation" in keys:
            totals = self.aggregates.totals
            out["consensus_correlation"] = consensus_correlation_of(
                workers, cell, totals, self.context, with_rho=False
            )
        for frame in out.values():
            frame["worker_id"] = self.workers.decode(frame["worker_id"])
        return out

    def consensus_rho(self, names: list[str]) -> dict[str, Any]:
        """H8's leave-one-out Spearman rho of the workers ``names`` (for decision details)."""
        assert self.aggregates is not None
        workers = pd.Index(self.workers.encode(names), name="worker_id")
        rows = self.content.rows("worker_id", workers)
        frame = consensus_correlation_of(workers, cells(rows), self.aggregates.totals, self.context)
        return {n: json_value(r) for n, r in zip(names, frame["rho"], strict=True)}

    def _ingest(self, rows: pd.DataFrame) -> pd.DataFrame:
        """Add stored rows to the row stores; return their content rows."""
        if rows.empty:
            return _EMPTY_CONTENT
        rows = rows.assign(
            worker_id=rows["worker_id"].astype(str),
            value=pd.to_numeric(rows["value"], errors="coerce").astype(float),
            seconds=pd.to_numeric(rows["seconds"], errors="coerce").astype(float),
            skipped=rows["skipped"].fillna(False).astype(bool),
        )
        self.rows.append(rows)
        self.seen.update(rows["judgment_pk"].tolist())
        self.last_id = max(self.last_id, int(rows["judgment_pk"].max()))
        last = rows.drop_duplicates("worker_id", keep="last")
        for name, worker, assignment in zip(
            last["worker_id"], last["worker_pk"], last["assignment_pk"], strict=True
        ):
            self.worker_pk[name] = int(worker)
            self.worker_name[int(worker)] = name
            self.latest_assignment[name] = int(assignment)
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
        for worker, unit, score, evidence in fresh.itertuples(index=False):
            self.unit_scores.setdefault(worker, {})[unit] = (score, evidence)


_STATES: dict[tuple[str, int], LiveState] = {}
_BUILDING = threading.Lock()
_EMPTY_CONTENT = pd.DataFrame(columns=["item_id", "worker_id", "value", "unit"])


def screen_assignment(session: Session, assignment_id: int) -> list[ScreeningDecision]:
    """Screen after one assignment's judgments are stored; return the decisions it stored.

    ``assignment_id`` is the store's id (`Assignment.id`). Calling again for the same
    assignment stores nothing new. Decisions and events join the caller's transaction.
    """
    assignment = session.get(Assignment, assignment_id)
    if assignment is None:
        raise StoreError(f"no assignment with id {assignment_id} in the store")
    hit = session.get(Hit, assignment.hit_id)
    assert hit is not None
    study = session.get(Study, hit.study_id)
    assert study is not None and study.id is not None
    state = live_state(session, study)
    if not state.keys:
        return []
    with state.lock:
        new = state.catch_up(session, assignment_id)
        worker = state.worker_name.get(assignment.worker_id)
        if worker is None:  # an assignment without judgments says nothing yet
            return []
        mine = state.assignment_rows(assignment_id)
        own = {worker, *(str(w) for w in new["worker_id"].unique())}
        units = {*mine["assignment_id"].astype(str), *new["assignment_id"].astype(str)}
        results = state.scores(own, state.affected(own, units))
        trigger = {"assignment": str(mine["assignment_id"].iloc[0]) if len(mine) else None}
        return _store_decisions(session, state, results, worker, assignment_id, trigger)


def live_state(session: Session, study: Study) -> LiveState:
    """This process's live state of ``study`` (built from the store on first use)."""
    assert study.id is not None
    bind = session.get_bind()
    key = (str(bind.engine.url), study.id)
    with _BUILDING:
        state = _STATES.get(key)
        if state is None or state.instrument_id != study.instrument_id:
            state = _STATES[key] = LiveState.build(session, study)
    return state


def forget_states() -> None:
    """Drop every cached live state (the next call rebuilds from the store)."""
    with _BUILDING:
        _STATES.clear()


def pending_decisions(session: Session, study_id: int) -> list[ScreeningDecision]:
    """Raised flags whose action is not ``report`` and that are not applied yet, oldest first.

    For the review stage: it applies each (block, reject, replace) and sets ``applied``. Only
    the latest decision of each (worker, heuristic) counts: a flag raised and since cleared is
    not pending.
    """
    query = (
        select(ScreeningDecision)
        .where(ScreeningDecision.study_id == study_id)
        .order_by(col(ScreeningDecision.id))
    )
    latest = {(d.worker_id, d.heuristic): d for d in session.exec(query).all()}
    return sorted(
        (
            d
            for d in latest.values()
            if d.flag and not d.applied and d.action != Action.REPORT.value
        ),
        key=lambda d: d.id or 0,
    )


def effective_threshold(key: str, context: ScreeningContext) -> float:
    """The threshold a heuristic compares with, on the study's scale (H6 is scaled)."""
    threshold = context.threshold(key)
    if key == "control_group_variance":
        return threshold * scale_factor(context)
    return threshold


def _store_decisions(
    session: Session,
    state: LiveState,
    results: dict[str, pd.DataFrame],
    worker: str,
    assignment_pk: int,
    trigger: dict[str, Any],
) -> list[ScreeningDecision]:
    """Store a decision for each (worker, heuristic) whose flag differs from the last stored."""
    workers = {str(w) for frame in results.values() for w in frame["worker_id"]}
    previous = _stored_flags(session, state.study_id, [state.worker_pk[w] for w in workers])
    decisions: list[ScreeningDecision] = []
    for key, frame in results.items():
        for record in frame.to_dict(orient="records"):
            name = str(record.pop("worker_id"))
            pk = state.worker_pk[name]
            flag = bool(record.pop("flag"))
            if previous.get((pk, key), False) == flag:
                continue
            score = json_value(record.pop("score"))
            evidence = int(record.pop("evidence"))
            details = {str(k): json_value(v) for k, v in record.items()}
            details.update(trigger, change="raised" if flag else "cleared")
            decision = ScreeningDecision(
                study_id=state.study_id,
                worker_id=pk,
                assignment_id=assignment_pk if name == worker else state.latest_assignment[name],
                heuristic=key,
                score=score,
                evidence=evidence,
                threshold=effective_threshold(key, state.context),
                flag=flag,
                action=state.context.action(key).value,
                applied=False,
                details=details,
            )
            session.add(decision)
            decisions.append(decision)
    h8 = [d for d in decisions if d.heuristic == "consensus_correlation"]
    if h8:
        rho = state.consensus_rho([state.worker_name[d.worker_id] for d in h8])
        for decision in h8:
            decision.details = {
                **decision.details,
                "rho": rho[state.worker_name[decision.worker_id]],
            }
    session.flush()
    for decision in decisions:
        record_event(
            session,
            DECISION_EVENT,
            study_id=state.study_id,
            subject=state.worker_name[decision.worker_id],
            payload={
                "decision": decision.id,
                "heuristic": decision.heuristic,
                "flag": decision.flag,
                "score": decision.score,
                "threshold": decision.threshold,
                "action": decision.action,
                **trigger,
            },
        )
    return decisions


def _stored_flags(
    session: Session, study_id: int, workers: list[int]
) -> dict[tuple[int, str], bool]:
    """The flag of the last stored decision per (worker, heuristic)."""
    if not workers:
        return {}
    query = (
        select(ScreeningDecision.worker_id, ScreeningDecision.heuristic, ScreeningDecision.flag)
        .where(ScreeningDecision.study_id == study_id)
        .where(col(ScreeningDecision.worker_id).in_(workers))
        .order_by(col(ScreeningDecision.id))
    )
    return {(w, h): f for w, h, f in session.exec(query).all()}


def _content_rows(rows: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Answered real-item rows with H7's ``unit`` (the assignment)."""
    if rows.empty:
        return _EMPTY_CONTENT
    table = answered(rows, context)
    return with_units(table[table["role"] == ItemRole.ITEM.value])
