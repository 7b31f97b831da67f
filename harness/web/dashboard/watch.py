"""A study as the dashboard shows it, read from the store and kept up to date cheaply.

`Watcher.snapshot` returns a `Snapshot` of one study. Each study's figures are cached in the
process, keyed by the study's assignment count and newest event id (two small queries): while
neither moves, every page, fragment and event stream gets the cached snapshot, however many
dashboards are open. When they move, only the new assignments' judgments are read
(`screening_rows`), the screening scores are brought up to date incrementally
(`IncrementalScores`, the same functions live screening uses) and alpha with its bootstrap
interval is recomputed (at most every `Watcher.alpha_every` seconds, each time a point on its
plot), in a thread of its own so that showing new work never waits for a bootstrap. The key
is checked at most every `Watcher.check_every` seconds per study, and the judgments and
scores are read at most every `Watcher.figures_every` seconds: a busy study's page shows new
submissions, decisions and events at once, and its workers table and alpha a moment later.

A moved key does not make the whole study be read again: only the assignments and events
stored since the last snapshot are (by id, `_quick`), added to the previous snapshot's; the
rest (the report, HITs, money, decisions, workers: what grows with the study) is read again
at most every `Watcher.full_every` seconds in a thread of its own (`_refresh_later`), so no
page waits for it, and at once after a person's action (`moved`), so the page after it shows
what was done. `Snapshot.full` says which full reading a snapshot carries, so that the
sections made only of those figures are rendered once per full reading (`fragments`).

A study with arms (docs/arms.md) is as many instruments as it has arms: each judgment read is
labelled with its arm (by its assignment's HIT), and alpha, the progress of the work and the
workers are shown per arm; alpha is never computed over the arms pooled.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from harness.clock import utcnow
from harness.errors import InputError
from harness.platform import money
from harness.platform.contract import Messaging, Pausing, messaging, pausing
from harness.platform.registry import platform_named
from harness.platform.review import unflagged_count
from harness.platform.status import ReportedStudy, StudyReport, study_report
from harness.screening.changes import effective_threshold
from harness.screening.context import ScreeningContext, content
from harness.screening.incremental import IncrementalScores
from harness.screening.stored import study_context
from harness.spec.study_types import definition
from harness.stats.alpha import Level
from harness.stats.reliability import DEFAULT_ALPHA_MIN, study_alpha_min
from harness.store.arm_tables import ArmHit, StudyArm
from harness.store.database import session_scope
from harness.store.decisions import acts, latest_decisions
from harness.store.judgment_table import (
    judged_assignments,
    screening_rows,
    unscreened_assignments,
)
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Event,
    EventKind,
    Hit,
    InstrumentVersion,
    ScreeningDecision,
    Study,
    StudyStatus,
    Worker,
)
from harness.store.studies import LaunchedStudy, launched
from harness.web.dashboard.figures import (
    DASHBOARD_RESAMPLES,
    AlphaPoint,
    ArmAlpha,
    ArmProgress,
    ControlResult,
    alpha_point,
    arm_progress,
    control_results,
    pace,
    worker_rows,
)
from harness.web.dashboard.requester import (
    AutoApproval,
    auto_approval,
    budget_alert,
    hourly_pay,
)

HISTORY_POINTS = 8
"""Points of the alpha plot computed for work stored before the dashboard opened the study."""

EVENTS_SHOWN = 60
SECTIONS = ("progress", "quality", "workers", "review", "events")
BLOCK_KINDS = (EventKind.BLOCKED, EventKind.UNBLOCKED)
PAUSE_KINDS = (EventKind.STUDY_PAUSE_INTENT, EventKind.STUDY_PAUSED)


@dataclass(frozen=True)
class Snapshot:
    """Everything the study page shows, as plain values (no database rows attached)."""

    version: int
    running: LaunchedStudy
    report: StudyReport
    fees: Decimal
    controls: list[ControlResult]
    level: str
    per_minute: float
    eta: timedelta | None
    alpha: list[AlphaPoint]
    heuristics: list[str]
    workers: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    events: list[dict[str, Any]]
    problems: list[dict[str, Any]]  # what failed, however long ago (`_problems`)
    blocked: dict[str, dict[str, Any]]
    scale: tuple[float, float]
    pausing: Pausing  # what a pause does on the study's platform, or why it has none
    messaging: Messaging  # what a message to a worker may hold there, or why there is none
    paused_since: datetime | None = None
    seen: int = 0  # the study's newest event when the snapshot was read: forms post it back
    unflagged: int = 0  # submissions awaiting review from workers screening has not flagged
    arms: list[ArmProgress] = field(default_factory=list)  # a study with arms: per arm
    auto_approval: AutoApproval | None = None  # where the platform approves by itself
    hourly: Decimal | None = None  # the reward per hour at the median time on task
    on_task: timedelta | None = None  # the median time from accepting to submitting
    budget_alert: bool = False  # the money committed reached `BUDGET_ALERT_SHARE` of the budget
    full: int = 0  # the version of the full reading its slow figures come from (`_quick`)
    alpha_min: float = DEFAULT_ALPHA_MIN  # the spec's smallest acceptable alpha

    @property
    def latest(self) -> AlphaPoint | None:
        return self.alpha[-1] if self.alpha else None

    def arm_alpha(self, arm: str) -> ArmAlpha | None:
        """The arm's latest alpha (None: not computed yet)."""
        latest = self.latest
        return next((a for a in latest.arms if a.arm == arm), None) if latest else None


@dataclass
class _StudyState:
    """One study's cache (see the module docstring)."""

    study_id: int
    context: ScreeningContext
    level: Level
    gold: dict[str, float] = field(default_factory=dict)
    arm_items: dict[str, set[str]] = field(default_factory=dict)  # arm -> its HITs' items
    target: int = 0  # raters per item (in every arm)
    auto_approval_delay: timedelta | None = None  # None: the platform never approves by itself
    alpha_min: float = DEFAULT_ALPHA_MIN
    worker_arms: dict[str, str] = field(default_factory=dict)
    arm_progress: list[ArmProgress] = field(default_factory=list)
    controls: list[ControlResult] = field(default_factory=list)
    rows: pd.DataFrame | None = None
    assignments: set[int] = field(default_factory=set)
    scores: IncrementalScores | None = None
    worker_scores: dict[str, pd.DataFrame] = field(default_factory=dict)
    alpha: list[AlphaPoint] = field(default_factory=list)
    alpha_rows: int = -1
    alpha_at: float = 0.0
    figures_busy: bool = False
    figures_at: float = 0.0
    figures_key: tuple[int, int] | None = None
    figures_lock: threading.Lock = field(default_factory=threading.Lock)
    key: tuple[int, int] | None = None
    checked_at: float = 0.0
    full_at: float = 0.0  # when the whole study was last read (`Watcher.full_every`)
    full_due: bool = False  # read it all soon, in a thread (new figures)
    full_busy: bool = False  # being read in a thread (`Watcher._refresh_later`)
    acted: bool = False  # read it all now: a person acted (`Watcher.moved`)
    newest: int = 0  # the store id of the newest assignment read (`_quick` reads those after)
    snapshot: Snapshot | None = None
    fragments: dict[str, tuple[Any, str]] = field(default_factory=dict)  # name: (`_shows`, html)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Watcher:
    """The dashboard's cache of studies on one store (one per app)."""

    engine: sa.Engine
    check_every: float = 0.25
    figures_every: float = 1.0
    alpha_every: float = 2.0
    full_every: float = 1.0
    background: bool = True
    _studies: dict[int, _StudyState] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _readings: list[threading.Thread] = field(default_factory=list)  # under way in threads

    def close(self) -> None:
        """Wait for the readings under way: they use the engine, which is disposed next."""
        with self._lock:
            readings, self._readings = self._readings, []
        for reading in readings:
            reading.join(timeout=60)

    def _in_thread(self, work: Callable[[], None], name: str) -> None:
        reading = threading.Thread(target=work, daemon=True, name=name)
        with self._lock:
            self._readings = [r for r in self._readings if r.is_alive()] + [reading]
        reading.start()

    def snapshot(self, study_id: int) -> Snapshot:
        """The study's snapshot, recomputed only when its work or events moved."""
        state = self._state(study_id)
        with state.lock:
            now = time.monotonic()
            if state.snapshot is not None and now - state.checked_at < self.check_every:
                return state.snapshot
            with session_scope(self.engine) as session:
                key = _key(session, study_id)
                state.checked_at = time.monotonic()
                figures_due = (
                    state.rows is not None
                    and not state.figures_busy
                    and (
                        (state.figures_key != key and now - state.figures_at >= self.figures_every)
                        or (
                            len(state.rows) != state.alpha_rows
                            and now - state.alpha_at >= self.alpha_every
                        )
                    )
                )
                if (
                    state.snapshot is not None
                    and key == state.key
                    and not figures_due
                    and not state.full_due
                    and not state.acted
                ):
                    return state.snapshot
                state.key = key
                previous = state.snapshot
                if previous is None or state.acted or not self.background:
                    state.acted = state.full_due = False
                    state.full_at = now
                    state.snapshot = self._install(state, *self._refresh(session, state))
                    return state.snapshot
                if (
                    figures_due or state.full_due or now - state.full_at >= self.full_every
                ) and not state.full_busy:
                    state.full_due, state.full_at = False, now
                    self._refresh_later(state)
                state.snapshot = self._quick(session, state, previous)
                return state.snapshot

    def moved(self, study_id: int) -> None:
        """Something was done to the study here (a person's action): the next snapshot checks
        the store at once instead of waiting out `check_every`, so the page after an action
        shows it."""
        with self._lock:
            state = self._studies.get(study_id)
        if state is not None:
            with state.lock:
                state.checked_at, state.acted = 0.0, True

    def rows(self, study_id: int) -> pd.DataFrame:
        """The study's judgments read so far (screening's lean long table)."""
        state = self._state(study_id)
        with state.lock:
            return (
                state.rows.copy()
                if state.rows is not None
                else pd.DataFrame(columns=["item_id", "worker_id", "value", "assignment_id"])
            )

    def worker_assignments(self, study_id: int, worker: str) -> list[dict[str, Any]]:
        """One worker's assignments in the study, oldest first."""
        with session_scope(self.engine) as session:
            return study_assignments(session, study_id, worker=worker)

    def fragments(
        self, snapshot: Snapshot, render: Callable[[Snapshot, list[str]], dict[str, str]]
    ) -> dict[str, str]:
        """The page's sections for ``snapshot``, each rendered once (``render(snapshot,
        names)`` gives the named ones) and kept while what it shows stays (`_shows`)."""
        state = self._state(snapshot.running.id)
        with state.lock:
            wanted = _shows(snapshot)
            stale = [n for n, v in wanted.items() if state.fragments.get(n, (-1, ""))[0] != v]
            if stale:
                for name, html in render(snapshot, stale).items():
                    state.fragments[name] = (wanted[name], html)
            return {name: state.fragments[name][1] for name in SECTIONS}

    def _state(self, study_id: int) -> _StudyState:
        with self._lock:
            state = self._studies.get(study_id)
            if state is None:
                with session_scope(self.engine) as session:
                    study = session.get(Study, study_id)
                    assert study is not None
                    context = study_context(session, study)
                    items = _arm_items(session, study_id)
                    running = launched(session, study)
                    version = session.get(InstrumentVersion, study.instrument_id)
                    spec = version.spec if version is not None else {}
                level = definition(context.scale.kind).alpha_level
                state = self._studies[study_id] = _StudyState(
                    study_id,
                    context,
                    level,
                    gold=_gold(context),
                    arm_items=items,
                    target=running.platform.assignments_per_hit,
                    auto_approval_delay=_auto_approval_delay(running, spec),
                    alpha_min=study_alpha_min(study.alpha_min, spec),
                )
            return state

    def _install(self, state: _StudyState, made: Snapshot, newest: int) -> Snapshot:
        """A full reading (`_refresh`) as the study's next version (under ``state.lock``)."""
        state.newest = newest
        version = 1 if state.snapshot is None else state.snapshot.version + 1
        return replace(made, version=version, full=version)

    def _refresh_later(self, state: _StudyState) -> None:
        """Read the whole study in a thread (under ``state.lock``); meanwhile, and while it
        is installed, pages get quick snapshots, so a new submission never waits for it."""
        state.full_busy = True

        def work() -> None:
            try:
                with session_scope(self.engine) as session:
                    made, newest = self._refresh(session, state)
                with state.lock:
                    state.snapshot = self._install(state, made, newest)
                    state.key = None  # the next snapshot adds what was stored since
            finally:
                state.full_busy = False

        self._in_thread(work, "dashboard-full")

    def _refresh(self, session: Session, state: _StudyState) -> tuple[Snapshot, int]:
        """The whole study read again (version 0: `_install` numbers it), and the store id of
        its newest assignment."""
        study = session.get(Study, state.study_id)
        assert study is not None
        running = launched(session, study)
        if state.rows is None or not self.background:
            state.figures_key = state.key
            self._figures(session, state)  # the first snapshot of a study has every figure
        elif not state.figures_busy and time.monotonic() - state.figures_at >= self.figures_every:
            self._figures_later(state)
        rows = state.rows if state.rows is not None else pd.DataFrame()
        worker_scores = dict(state.worker_scores)
        assignments = study_assignments(session, state.study_id)
        decisions, names = _decisions(session, state.study_id)
        blocked = _blocked(session, state.study_id)
        platform = platform_named(running.platform.provider)
        report = study_report(session, platform, ReportedStudy.of(running))
        planned = _planned(session, state.study_id)
        finished = sum(
            1 for a in assignments if a["status"] not in ("accepted", "returned", "abandoned")
        )
        per_assignment = len(rows) / max(len(state.assignments), 1)
        per_minute, eta = pace(
            [a["submitted_at"] for a in assignments if a["submitted_at"] is not None],
            per_assignment,
            planned - finished,
            utcnow(),
        )
        pending = _awaiting_review(assignments)
        on_task = [
            (a["submitted_at"] - a["accepted_at"]).total_seconds()
            for a in assignments
            if a["submitted_at"] is not None and a["accepted_at"] is not None
        ]
        thresholds = {k: effective_threshold(k, state.context) for k in worker_scores}
        table = worker_rows(rows, worker_scores, thresholds)
        if state.arm_items:
            table["arm"] = [state.worker_arms.get(str(w)) for w in table["worker_id"]]
        made = Snapshot(
            version=0,
            running=running,
            report=report,
            fees=money.fees(session, platform, running.id, running.platform.reward),
            controls=list(state.controls),
            level=state.level,
            per_minute=per_minute,
            eta=eta,
            alpha=list(state.alpha),
            heuristics=list(worker_scores),
            workers=_worker_records(table, decisions, names, blocked),
            pending=pending,
            decisions=[
                _decision_record(d, names, {a["pk"]: a["id"] for a in assignments})
                for d in decisions
                if d.flag
            ],
            events=_events(session, state.study_id),
            problems=_problems(session, state.study_id),
            blocked=blocked,
            scale=(state.context.scale.min, state.context.scale.max),
            pausing=pausing(platform),
            messaging=messaging(platform),
            paused_since=_paused_since(session, state.study_id, report.status),
            seen=state.key[1] if state.key is not None else 0,
            unflagged=unflagged_count(session, state.study_id),
            arms=list(state.arm_progress),
            auto_approval=None
            if state.auto_approval_delay is None
            else auto_approval(
                [a["submitted_at"] for a in pending if a["submitted_at"] is not None],
                state.auto_approval_delay,
                utcnow(),
            ),
            hourly=hourly_pay(on_task, running.platform.reward),
            on_task=timedelta(seconds=statistics.median(on_task)) if on_task else None,
            budget_alert=budget_alert(report.committed, report.budget),
            alpha_min=state.alpha_min,
        )
        return made, assignments[-1]["pk"] if assignments else 0

    def _quick(self, session: Session, state: _StudyState, previous: Snapshot) -> Snapshot:
        """``previous`` with the assignments and events stored since it was read (by id: two
        small queries, whatever the study's size); the rest is read again by `_refresh`."""
        new = study_assignments(session, state.study_id, after=state.newest)
        state.newest = new[-1]["pk"] if new else state.newest
        newest = previous.events[0]["id"] if previous.events else 0
        events = _events(session, state.study_id, after=newest) + previous.events
        return replace(
            previous,
            version=previous.version + 1,
            pending=previous.pending + _awaiting_review(new),
            events=events[:EVENTS_SHOWN],
            seen=state.key[1] if state.key is not None else previous.seen,
        )

    def _figures_later(self, state: _StudyState) -> None:
        """Bring the judgments, scores and alpha up to date in a thread; when anything moved,
        the next snapshot is made anew (showing new work never waits for them)."""
        state.figures_busy = True
        state.figures_at, state.figures_key = time.monotonic(), state.key

        def work() -> None:
            try:
                with session_scope(self.engine) as session:
                    moved = self._figures(session, state)
            finally:
                state.figures_busy = False
            if moved:
                with state.lock:
                    state.key, state.full_due = None, True  # read in a thread, not waited for

        self._in_thread(work, "dashboard-figures")

    def _figures(self, session: Session, state: _StudyState) -> bool:
        """Read new judgments, rescore, and add a point of alpha when due; whether anything
        moved. One at a time per study (``figures_lock``)."""
        with state.figures_lock:
            moved = self._take_in(session, state)
            rows = state.rows
            if moved and rows is not None:
                state.controls = control_results(
                    rows, state.gold, state.context.scale.max, list(state.arm_items)
                )
                if state.arm_items:
                    state.arm_progress = arm_progress(rows, state.arm_items, state.target)
            if rows is None or rows.empty or len(rows) == state.alpha_rows:
                return moved
            if state.alpha and time.monotonic() - state.alpha_at < self.alpha_every:
                return moved
            decisions, names = _decisions(session, state.study_id)
            removed = {names[d.worker_id] for d in decisions if acts(d.flag, d.action)}
            removed |= set(_blocked(session, state.study_id))
            if not state.alpha:
                points = self._history(
                    rows, study_assignments(session, state.study_id), state, removed
                )
            else:
                point = alpha_point(
                    content(rows, state.context),
                    state.level,
                    removed,
                    utcnow(),
                    arms=list(state.arm_items),
                )
                points = [*state.alpha, point]
            state.alpha = points
            state.alpha_rows, state.alpha_at = len(rows), time.monotonic()
            return True

    def _take_in(self, session: Session, state: _StudyState) -> bool:
        """Read the judgments of assignments not read yet and bring the scores up to date;
        whether there were any. The new rows and scores replace the old at once."""
        judged = judged_assignments(session, state.study_id)
        new = judged - state.assignments
        if not new and state.rows is not None:
            return False
        plain = screening_rows(session, state.study_id, assignments=sorted(new))
        fresh = plain
        if state.arm_items:  # each row labelled with its arm, each worker's arm noted
            fresh = plain.assign(arm=plain["assignment_pk"].map(_assignment_arms(session, new)))
            firsts = fresh.groupby("worker_id", sort=False)["arm"].first()
            state.worker_arms = state.worker_arms | {str(w): str(a) for w, a in firsts.items()}
        rows = fresh if state.rows is None else pd.concat([state.rows, fresh], ignore_index=True)
        scores = dict(state.worker_scores)
        if not rows.empty:
            if state.scores is None:  # the first judgments: ``rows`` holds only ``fresh``
                state.scores = IncrementalScores.of(state.context, plain)
                state.scores.assignments |= judged
            else:
                state.scores.add(plain, new)
            own = {str(w) for w in fresh["worker_id"].unique()}
            units = {str(a) for a in fresh["assignment_id"].unique()}
            if state.scores.keys and own:
                for key, frame in state.scores.scores(own, units).items():
                    frame = frame.set_index(frame["worker_id"].astype(str)).drop(
                        columns="worker_id"
                    )  # score, flag, and the heuristic's evidence
                    previous = scores.get(key)
                    if previous is not None:
                        frame = pd.concat([previous[~previous.index.isin(frame.index)], frame])
                    scores[key] = frame
        state.rows, state.worker_scores = rows, scores
        state.assignments = state.assignments | new
        return True

    def _history(
        self,
        rows: pd.DataFrame,
        assignments: list[dict[str, Any]],
        state: _StudyState,
        removed: set[str],
    ) -> list[AlphaPoint]:
        """Alpha at up to `HISTORY_POINTS` moments of the work already stored (by the order
        assignments were stored in), with half the resamples of a live point."""
        order = [a for a in assignments if a["pk"] in state.assignments]
        if not order:
            return []
        table = content(rows, state.context)
        points = []
        step = max(1, len(order) // HISTORY_POINTS)
        cuts = list(range(step, len(order), step))[: HISTORY_POINTS - 1] + [len(order)]
        for cut in cuts:
            pks = {a["pk"] for a in order[:cut]}
            part = table[table["assignment_pk"].isin(pks)]
            when = max(
                (a["submitted_at"] for a in order[:cut] if a["submitted_at"] is not None),
                default=utcnow(),
            )
            points.append(
                alpha_point(
                    part,
                    state.level,
                    removed,
                    when,
                    resamples=DASHBOARD_RESAMPLES // 2,
                    arms=list(state.arm_items),
                )
            )
        return points


def _shows(snapshot: Snapshot) -> dict[str, Any]:
    """What each section shows, as a key that moves when it does: a quick snapshot
    (`Watcher._quick`) moves only the events and the submissions awaiting review, so the
    other sections are rendered once per full reading."""
    newest = snapshot.events[0]["id"] if snapshot.events else 0
    return {
        "progress": snapshot.full,
        "quality": snapshot.full,
        "workers": snapshot.full,
        "review": (snapshot.full, len(snapshot.pending)),
        "events": (snapshot.full, newest),
    }


def _auto_approval_delay(running: LaunchedStudy, spec: dict[str, Any]) -> timedelta | None:
    """How long after a submission its platform approves it by itself (the platform's own
    window, e.g. Prolific's 21 days, else the frozen ``spec``'s ``hit.auto_approval_delay``);
    None where the platform never does."""
    capabilities = platform_named(running.platform.provider).capabilities
    if capabilities.auto_approval_window is not None:
        return capabilities.auto_approval_window
    if not capabilities.auto_approves:
        return None
    seconds = (spec.get("hit") or {}).get("auto_approval_delay")
    return None if seconds is None else timedelta(seconds=int(seconds))


def _gold(context: ScreeningContext) -> dict[str, float]:
    items = context.items
    if items is None or "gold" not in items.columns:
        return {}
    known = items.dropna(subset=["gold"])
    return {str(k): float(v) for k, v in zip(known["item_id"], known["gold"], strict=True)}


def _arm_items(session: Session, study_id: int) -> dict[str, set[str]]:
    """A study with arms: each arm's items (of its HITs), in the arms' order; else empty."""
    rows = session.exec(
        select(StudyArm.name, Hit.items)
        .join(ArmHit, col(ArmHit.arm_id) == col(StudyArm.id))
        .join(Hit, col(Hit.id) == col(ArmHit.hit_id))
        .where(StudyArm.study_id == study_id)
        .order_by(col(StudyArm.position))
    ).all()
    out: dict[str, set[str]] = {}
    for name, items in rows:
        out.setdefault(name, set()).update(items)
    return out


def _assignment_arms(session: Session, pks: set[int]) -> dict[int, str]:
    """The arm of each of these assignments (store ids), by their HIT."""
    if not pks:
        return {}
    rows = session.exec(
        select(Assignment.id, StudyArm.name)
        .join(ArmHit, col(ArmHit.hit_id) == col(Assignment.hit_id))
        .join(StudyArm, col(StudyArm.id) == col(ArmHit.arm_id))
        .where(col(Assignment.id).in_(sorted(pks)))
    ).all()
    return {int(pk or 0): name for pk, name in rows}


def _key(session: Session, study_id: int) -> tuple[int, int]:
    """What moves when anything the page shows moves: assignments and the event log."""
    count = session.exec(
        select(func.count())
        .select_from(Assignment)
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(Hit.study_id == study_id)
    ).one()
    newest = session.exec(select(func.max(Event.id)).where(Event.study_id == study_id)).one()
    return int(count), int(newest or 0)


def study_assignments(
    session: Session,
    study_id: int,
    *,
    after: int = 0,
    worker: str | None = None,
    assignment: str | None = None,
) -> list[dict[str, Any]]:
    """The study's assignments stored after the one with store id ``after``, oldest first:
    only ``worker``'s, or only the one the platform calls ``assignment``, when given."""
    query = (
        sa.select(
            col(Assignment.id),
            col(Assignment.platform_assignment_id),
            col(Assignment.status),
            col(Assignment.submitted_at),
            col(Worker.platform_worker_id),
            col(Hit.index),
            col(Assignment.accepted_at),
        )
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .join(Worker, col(Worker.id) == col(Assignment.worker_id))
        .where(col(Hit.study_id) == study_id, col(Assignment.id) > after)
        .order_by(col(Assignment.id))
    )
    if worker is not None:
        query = query.where(col(Worker.platform_worker_id) == worker)
    if assignment is not None:
        query = query.where(col(Assignment.platform_assignment_id) == assignment)
    return [
        {
            "pk": pk,
            "id": aid,
            "status": AssignmentStatus(status).value,
            "submitted_at": _utc(submitted),
            "worker": worker,
            "hit": index,
            "accepted_at": _utc(accepted),
        }
        for pk, aid, status, submitted, worker, index, accepted in session.execute(query)
    ]


def _planned(session: Session, study_id: int) -> int:
    """The assignments the study's HITs ask for in all."""
    total = session.exec(
        select(func.sum(Hit.max_assignments)).where(Hit.study_id == study_id)
    ).one()
    return int(total or 0)


def _awaiting_review(assignments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in assignments if a["status"] == AssignmentStatus.SUBMITTED.value]


def _paused_since(session: Session, study_id: int, status: str) -> datetime | None:
    """When the study's latest pause was recorded (None: it is not paused)."""
    if status != StudyStatus.PAUSED.value:
        return None
    found = session.exec(
        select(Event.at)
        .where(Event.study_id == study_id, col(Event.kind).in_(PAUSE_KINDS))
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    return _utc(found)


def _decisions(session: Session, study_id: int) -> tuple[list[ScreeningDecision], dict[int, str]]:
    """The study's latest screening decisions, and the platform ids of the workers they are
    about (by store id)."""
    decisions = latest_decisions(session, study_id)
    pks = sorted({d.worker_id for d in decisions})
    if not pks:
        return decisions, {}
    found = session.exec(
        select(Worker.id, Worker.platform_worker_id).where(col(Worker.id).in_(pks))
    ).all()
    return decisions, {int(pk or 0): name for pk, name in found}


def _blocked(session: Session, study_id: int) -> dict[str, dict[str, Any]]:
    """Workers blocked in the study now: when, why and by whom (screening or a person)."""
    events = session.exec(
        select(Event)
        .where(col(Event.study_id) == study_id, col(Event.kind).in_(BLOCK_KINDS))
        .order_by(col(Event.id))
    ).all()
    out: dict[str, dict[str, Any]] = {}
    for event in events:
        if event.kind is EventKind.UNBLOCKED:
            out.pop(str(event.subject), None)
            continue
        reason = str(event.payload.get("reason", ""))
        out[str(event.subject)] = {"at": _utc(event.at), "reason": reason, "by": decided_by(reason)}
    return out


def decided_by(reason: str) -> str:
    """Who took an action, from the reason it was logged with."""
    if reason.startswith("screening"):
        return "live screening"
    if reason.startswith("dashboard"):
        return "a person (dashboard)"
    return "a person (review)" if reason else "unknown"


def _decision_record(
    decision: ScreeningDecision, names: dict[int, str], aids: dict[int, str] | None = None
) -> dict[str, Any]:
    """A decision as the page shows it; ``assignment`` is the platform's id of the assignment
    it is about (None: about the worker, all their work)."""
    pk = decision.assignment_id
    return {
        "id": decision.id,
        "worker": names.get(decision.worker_id, str(decision.worker_id)),
        "assignment": None if pk is None else (aids or {}).get(pk, str(pk)),
        "heuristic": decision.heuristic,
        "score": decision.score,
        "threshold": decision.threshold,
        "action": decision.action.value,
        "state": decision.state.value,
        "at": _utc(decision.created_at),
    }


def _worker_records(
    table: pd.DataFrame,
    decisions: list[ScreeningDecision],
    names: dict[int, str],
    blocked: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    flags: dict[str, list[dict[str, Any]]] = {}
    for d in decisions:
        if d.flag:
            flags.setdefault(names.get(d.worker_id, ""), []).append(_decision_record(d, names))
    records: list[dict[str, Any]] = []
    for raw in table.to_dict(orient="records"):
        row = {str(k): v for k, v in raw.items()}
        worker = str(row["worker_id"])
        seconds = row["median_seconds"]
        records.append(
            {
                **row,
                "worker_id": worker,
                "median_seconds": None if pd.isna(seconds) else float(seconds),
                "flags": flags.get(worker, []),
                "blocked": blocked.get(worker),
            }
        )
    return records


def _events(session: Session, study_id: int, after: int = 0) -> list[dict[str, Any]]:
    """The study's newest `EVENTS_SHOWN` events logged after the one with id ``after``,
    newest first."""
    events = session.exec(
        select(Event)
        .where(Event.study_id == study_id, col(Event.id) > after)
        .order_by(col(Event.id).desc())
        .limit(EVENTS_SHOWN)
    ).all()
    return [
        {
            "id": e.id,
            "at": _utc(e.at),
            "kind": e.kind.value,
            "subject": _subject(e),
            "detail": _detail(e.payload),
        }
        for e in events
    ]


def _subject(event: Event) -> str:
    """What an event is about, in names a person knows: an action logged under its token
    (a bonus, raters added) is named by its assignment and worker, or its HIT."""
    subject = event.subject or ""
    if not subject.startswith("harness-"):
        return subject
    payload = event.payload
    if payload.get("assignment"):
        worker = payload.get("worker")
        return str(payload["assignment"]) + (f" (worker {worker})" if worker else "")
    if payload.get("hit"):
        return f"HIT {payload['hit']}"
    if payload.get("worker"):  # a message
        return f"worker {payload['worker']}"
    return subject


PROBLEMS = {
    EventKind.AFTER_SUBMISSION_FAILED: (
        "live screening failed",
        "the answers are stored; the task server screens them again within seconds, and "
        "`harness sync` or `harness review` before anything is approved",
    ),
    EventKind.ACTION_FAILED: (
        "a platform action failed",
        "its decision is pending again: the task server retries it within seconds, and so "
        "does `harness sync`",
    ),
}
"""Failures the study page shows until they are fixed, whether or not the event feed still
holds them: (what failed, what happens next)."""


def _problems(session: Session, study_id: int) -> list[dict[str, Any]]:
    """Per kind of failure logged for the study: how many, the latest (when, error), what
    happens next; and how many stored assignments are still not screened."""
    out = []
    for kind, (what, next_) in PROBLEMS.items():
        count = session.exec(
            select(func.count()).where(Event.study_id == study_id, Event.kind == kind)
        ).one()
        if not count:
            continue
        latest = session.exec(
            select(Event)
            .where(Event.study_id == study_id, Event.kind == kind)
            .order_by(col(Event.id).desc())
            .limit(1)
        ).one()
        problem: dict[str, Any] = {
            "kind": kind.value,
            "what": what,
            "count": int(count),
            "next": next_,
            "at": _utc(latest.at),
            "error": str(latest.payload.get("error", "")),
        }
        if kind is EventKind.AFTER_SUBMISSION_FAILED:
            problem["unscreened"] = len(unscreened_assignments(session, study_id))
        out.append(problem)
    return out


def _detail(payload: dict[str, Any]) -> str:
    shown = ("reason", "heuristic", "flag", "action", "amount", "why", "error", "status", "to")
    return "; ".join(f"{k} {payload[k]}" for k in shown if k in payload)


def _utc(when: datetime | None) -> datetime | None:
    if when is None:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def studies_overview(session: Session) -> list[dict[str, Any]]:
    """Every study in the store with its platform, target, state, progress and money."""
    out = []
    for study in session.exec(select(Study).order_by(col(Study.created_at))).all():
        entry: dict[str, Any] = {
            "name": study.name,
            "target": study.target,
            "status": study.status.value,
            "report": None,
        }
        try:
            running = launched(session, study)
        except InputError:  # a study never launched has no platform, progress or money
            out.append(entry)
            continue
        platform = platform_named(running.platform.provider)
        entry["platform"] = platform.label
        entry["report"] = study_report(session, platform, ReportedStudy.of(running))
        out.append(entry)
    return out
