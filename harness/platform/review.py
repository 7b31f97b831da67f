"""Review a study: carry out screening's decisions (`harness.platform.decisions`), then approve
every other submitted assignment (in bulk where the platform can).

A participant who withdrew from the study is paid for what they submitted: their submitted work
is approved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.errors import StoreError
from harness.platform.actions import (
    ActionKind,
    ReviewAction,
    approve_all,
    return_requested,
    submitted,
)
from harness.platform.contract import Provider
from harness.platform.decisions import apply_pending_decisions, planned_decisions
from harness.platform.registry import provider_for
from harness.platform.submissions.after_submission import run_after_submission, screen
from harness.spec.model import Action
from harness.store.database import session_scope
from harness.store.decisions import latest_decisions
from harness.store.events import EventKind
from harness.store.models import Assignment, AssignmentStatus, DecisionState, Event, Hit
from harness.store.studies import LaunchedStudy

UNFLAGGED = "submitted, not flagged"


def review_study(
    session: Session, provider: Provider, study: LaunchedStudy, *, dry_run: bool = False
) -> list[ReviewAction]:
    """Apply pending screening decisions, then approve every other submitted assignment.

    ``dry_run``: return what would be done and do nothing.
    """
    if dry_run:
        planned = planned_decisions(session, study)
        decided = {a.subject for a in planned if a.kind in (ActionKind.REJECT, ActionKind.RETURN)}
        planned += [
            ReviewAction(ActionKind.APPROVE, a.platform_assignment_id, UNFLAGGED)
            for a in _approvable(session, study)
            if a.platform_assignment_id not in decided
        ]
        return planned
    done = apply_pending_decisions(session, provider, study)
    for aid in approve_all(session, provider, study, _approvable(session, study), UNFLAGGED):
        done.append(ReviewAction(ActionKind.APPROVE, aid, UNFLAGGED))
    return done


def _approvable(session: Session, study: LaunchedStudy) -> list[Assignment]:
    """Submitted assignments review may approve: not those whose return it asked for."""
    return [
        a
        for a in submitted(session, study.id)
        if not return_requested(session, study.id, a.platform_assignment_id)
    ]


def unflagged_submissions(session: Session, study_id: int) -> list[Assignment]:
    """Submissions awaiting review whose worker screening has not flagged for an action
    (no raised block, reject, replace or return, pending or carried out), oldest first."""
    kept = _unflagged(session, study_id)
    return [a for a in submitted(session, study_id) if kept(a.worker_id, a.platform_assignment_id)]


def unflagged_count(session: Session, study_id: int) -> int:
    """How many `unflagged_submissions` there are, read without loading them."""
    kept = _unflagged(session, study_id)
    rows = session.execute(
        sa.select(col(Assignment.worker_id), col(Assignment.platform_assignment_id))
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == study_id, col(Assignment.status) == AssignmentStatus.SUBMITTED)
    )
    return sum(1 for worker, aid in rows if kept(worker, aid))


def _unflagged(session: Session, study_id: int) -> Callable[[int, str], bool]:
    """Whether a submission (its worker's store id, its assignment id) is unflagged: its
    worker has no raised acting decision pending or carried out, and no return was asked."""
    flagged = {
        d.worker_id
        for d in latest_decisions(session, study_id)
        if d.flag
        and d.action is not Action.REPORT
        and d.state in (DecisionState.PENDING, DecisionState.APPLIED)
    }
    returns = set(
        session.exec(
            select(Event.subject).where(
                Event.study_id == study_id, Event.kind == EventKind.RETURN_INTENT
            )
        )
    )
    return lambda worker, aid: worker not in flagged and aid not in returns


def review_stored_study(
    engine: sa.Engine, running: LaunchedStudy, *, dry_run: bool = False
) -> list[ReviewAction]:
    """Screen what ``running`` stored and nobody screened yet (nothing goes unscreened into
    review), then review it on its platform (`review_study`)."""
    provider = provider_for(running)
    if not dry_run:
        failure = run_after_submission(engine, screen, running)
        if failure is not None:
            raise StoreError(
                f"screening {running.study.name}'s stored assignments failed ({failure}); "
                "nothing was reviewed. Fix the cause and run `harness review` again"
            )
    with session_scope(engine) as session:
        return review_study(session, provider, running, dry_run=dry_run)


def review_summary(study: str, actions: Sequence[ReviewAction], *, dry_run: bool = False) -> str:
    """The counts per action, in one line."""
    kinds = Counter(a.kind.value for a in actions)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "nothing to do"
    return f"{study}: {'dry run, ' if dry_run else ''}{summary}"
