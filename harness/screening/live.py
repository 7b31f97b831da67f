"""Live screening: decide on workers as soon as their assignments' judgments are stored.

`screen_pending` takes every stored assignment of a study that live screening has not taken
into account yet, updates the scores they can move (`IncrementalScores`), stores a decision
for each (worker, heuristic) whose flag appeared or cleared (for H7, judged per assignment as
batch screening judges it, each (worker, assignment); `flag_changes`, kept by
`harness.store.decisions`), and marks the assignments screened, all in one transaction.
Applying block / reject / replace is the review stage's job (`harness.platform.review`).

Several processes may serve a study (task-server workers, a sync): the transaction first takes
the study's lock in the database (`harness.store.locks.lock_study`), so they take turns, and
each brings its in-memory scores up to exactly the judgments stored, by assignment, before
scoring. Noticing what other processes screened costs one count per call: each process keeps
the set of assignments it knows the store holds as screened (a subset of the store's, since
``screened_at`` is never unset), and reads the store's set only when the count differs. The
scores are a cache of the database, never a source: which process screens, or in which
batches, does not change the decisions (up to the order of floating-point sums). An assignment
whose screening failed stays unscreened, and the next call (the next submission, `harness
sync`, `harness review`, a server start) screens it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col, update

from harness.clock import utcnow
from harness.screening.changes import flag_changes
from harness.screening.incremental import IncrementalScores
from harness.screening.stored import study_context
from harness.spec.heuristics import HeuristicKey
from harness.store.database import session_scope
from harness.store.decisions import add_decisions, latest_flags
from harness.store.events import EventKind, record_event
from harness.store.judgment_table import (
    screened_assignments,
    screened_count,
    screening_rows,
    unscreened_assignments,
)
from harness.store.locks import lock_study
from harness.store.models import Assignment, ScreeningDecision, Study


@dataclass
class _Cached:
    instrument_id: int
    scores: IncrementalScores
    lock: threading.Lock = field(default_factory=threading.Lock)
    # assignments known to be screened in the store (committed): always a subset of the store's
    screened: set[int] = field(default_factory=set)


_CACHE: dict[tuple[str, int], _Cached] = {}
_CACHE_LOCK = threading.Lock()


def screen_pending(engine: sa.Engine, study: Study | int) -> list[ScreeningDecision]:
    """Screen the study's stored assignments not screened yet; return the decisions stored.
    ``study``: its row as the caller read it, or its id (the row read here, if needed).

    Calling it again with nothing new stores nothing. Safe to call from several processes at
    once (see the module docstring).
    """
    study_id = study if isinstance(study, int) else study.id
    assert study_id is not None
    with session_scope(engine) as session:
        lock_study(session, study_id)  # first: on SQLite the lock must open the transaction
        pending = unscreened_assignments(session, study_id)
        if not pending:
            return []
        if isinstance(study, int):
            found = session.get(Study, study_id)
            assert found is not None
            study = found
        cached = _cached(session, study)
        with cached.lock:
            if screened_count(session, study_id) != len(cached.screened):
                cached.screened = screened_assignments(session, study_id)
            missing = cached.screened - cached.scores.assignments
            decisions = _screen(session, study, cached.scores, missing, pending)
        session.execute(
            update(Assignment).where(col(Assignment.id).in_(pending)).values(screened_at=utcnow())
        )
    with cached.lock:  # committed: the store now holds them as screened
        cached.screened.update(pending)
    return decisions


def forget_states() -> None:
    """Drop every cached study (the next call rebuilds from the store): a fresh process."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _cached(session: Session, study: Study) -> _Cached:
    """This process's scores of ``study`` (built from every stored judgment on first use)."""
    assert study.id is not None
    key = (str(session.get_bind().engine.url), study.id)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is None or cached.instrument_id != study.instrument_id:
            context = study_context(session, study)
            cached = _CACHE[key] = _Cached(
                study.instrument_id,
                IncrementalScores.of(context, screening_rows(session, study.id)),
            )
    return cached


def _screen(
    session: Session,
    study: Study,
    scores: IncrementalScores,
    missing: set[int],
    pending: list[int],
) -> list[ScreeningDecision]:
    """Take in the screened assignments the scores lack (``missing``) and the ``pending`` ones,
    rescore, store the flags that changed."""
    assert study.id is not None
    rows = screening_rows(session, study.id, assignments=sorted(missing | set(pending)))
    scores.add(rows, missing | set(pending))  # takes in only what it lacks
    if not scores.keys:
        return []
    # the workers with new rows: the pending assignments', and any the scores lacked
    own = {str(w) for w in rows["worker_id"].unique()}
    if not own:
        return []
    units = {str(a) for a in rows["assignment_id"].unique()}
    results = scores.scores(own, units, per_assignment=True)  # H7 as batch screening judges it
    workers = {str(w) for frame in results.values() for w in frame["worker_id"]}
    previous = latest_flags(session, study.id, [scores.worker_pk[w] for w in workers])
    own_assignment = _latest_by_worker(rows, set(pending))
    changes = flag_changes(
        results,
        previous,
        scores.context,
        worker_pk=scores.worker_pk,
        assignment_of=lambda name: own_assignment.get(name, scores.latest_assignment.get(name)),
        details={"assignments": sorted(units)},
        unit_assignment=scores.unit_assignment,
    )
    records = [vars(c) for c in changes]
    h8 = [r for r in records if r["heuristic"] == HeuristicKey.CONSENSUS_CORRELATION]
    if h8:
        rho = scores.consensus_rho([scores.worker_name[r["worker_pk"]] for r in h8])
        for record in h8:
            record["details"] = {
                **record["details"],
                "rho": rho[scores.worker_name[record["worker_pk"]]],
            }
    decisions = add_decisions(session, study.id, records)
    for decision in decisions:
        record_event(
            session,
            EventKind.SCREENING_DECISION,
            study_id=study.id,
            subject=scores.worker_name[decision.worker_id],
            payload={
                "decision": decision.id,
                "heuristic": decision.heuristic,
                "flag": decision.flag,
                "score": decision.score,
                "threshold": decision.threshold,
                "action": decision.action.value,
                "assignments": sorted(units),
            },
        )
    return decisions


def _latest_by_worker(rows: pd.DataFrame, assignments: set[int]) -> dict[str, int]:
    """Each worker's newest assignment (store id) among ``assignments``, from ``rows``."""
    latest: dict[str, int] = {}
    pairs = zip(rows["worker_id"].tolist(), rows["assignment_pk"].tolist(), strict=True)
    for name, assignment in pairs:
        if assignment in assignments:
            latest[str(name)] = max(int(assignment), latest.get(str(name), 0))
    return latest
