"""Sync a study on a platform with places: one list of submissions for the whole study.

Each submission is matched to its slot by the session id the participant arrived with (the
allocator made the assignment under that id): submitted, approved and rejected work is
reconciled like a polled MTurk assignment (`harness.platform.reconcile.apply_submission`); a
returned, timed-out or rejected session frees its slot for the next participant (the platform
opens its place again). Sessions harness never
allocated (a participant who joined on the platform and left before reaching the pages) are
counted and left alone. Idempotent: a second run writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlmodel import Session, select

from harness.platform.contract import PlacesProvider, Provider, Submission, SubmissionState
from harness.platform.places import published_ref
from harness.platform.reconcile import (
    SyncHooks,
    SyncReport,
    apply_submission,
    assignment_named,
    run_hooks,
)
from harness.store.allocation import release, reopen
from harness.store.database import session_scope
from harness.store.models import AssignmentStatus, Hit, Study
from harness.store.studies import LaunchedStudy, launched

_FREED = {
    SubmissionState.RETURNED: AssignmentStatus.RETURNED,
    SubmissionState.TIMED_OUT: AssignmentStatus.ABANDONED,
}


def sync_places(
    engine: sa.Engine, provider: PlacesProvider, study: LaunchedStudy, hooks: SyncHooks
) -> SyncReport:
    """Reconcile every submission of the study's one published study with the store."""
    report = SyncReport()
    with session_scope(engine) as session:
        ref = published_ref(session, study.id)
        report.hits = len(session.exec(select(Hit.id).where(Hit.study_id == study.id)).all())
    if ref is None:
        return report
    for submission in provider.study_submissions(ref):
        with session_scope(engine) as session:
            apply_places_submission(session, study, submission, hooks, report)
    run_hooks(engine, study, hooks, report)
    return report


def apply_places_submission(
    session: Session,
    study: LaunchedStudy,
    submission: Submission,
    hooks: SyncHooks,
    report: SyncReport,
) -> None:
    """Store what the platform says of one submission (polled, or named by a hook)."""
    assignment = assignment_named(session, submission.assignment_id)
    if assignment is None:
        return  # never reached the task pages: no slot, nothing to store
    freed = _FREED.get(submission.state)
    if freed is not None:
        if release(session, submission.assignment_id, freed, submission.state.value):
            report.status_changes += 1
        return
    if submission.state is SubmissionState.REJECTED and reopen(
        session, submission.assignment_id, submission.state.value
    ):  # first: the places lock is taken before this transaction writes
        report.status_changes += 1
    hit = session.get(Hit, assignment.hit_id)
    assert hit is not None
    apply_submission(session, study, hit, submission, hooks, report)


def sync_submission(
    engine: sa.Engine,
    assignment_id: str,
    hooks: SyncHooks,
    connect: Callable[[LaunchedStudy], Provider],
) -> SyncReport | None:
    """Sync one submission a hook named, looked up on the platform (a hook says what happened,
    the platform what is true now: a late or repeated delivery stores nothing new); None when
    harness never allocated it (not ours, or the participant never reached the pages)."""
    with session_scope(engine) as session:
        assignment = assignment_named(session, assignment_id)
        if assignment is None:
            return None
        hit = session.get(Hit, assignment.hit_id)
        assert hit is not None
        found = session.get(Study, hit.study_id)
        assert found is not None
        study = launched(session, found)
    submission = connect(study).submission(assignment_id)
    report = SyncReport()
    if submission is None:
        return report  # reserved or active: nothing to store yet
    with session_scope(engine) as session:
        apply_places_submission(session, study, submission, hooks, report)
    run_hooks(engine, study, hooks, report)
    return report
