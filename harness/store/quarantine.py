"""Quarantined submissions: answers the platform has not confirmed belong to their poster.

A task page's answers count (become the assignment's judgments) only once the platform says
the assignment is the poster's (`harness.platform.verification`). Until then they are kept
here, apart from assignments and judgments: they are never screened, reviewed or approved,
`status` counts them separately, and they never block the assignment's real worker. Each
is resolved later, when the platform answers: ``verified`` (its answers were stored as the
assignment's judgments) or ``refused`` (the assignment is someone else's).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Session, col

from harness.clock import utcnow
from harness.store.events import EventKind, log_event
from harness.store.models import (
    Assignment,
    Judgment,
    QuarantinedSubmission,
    QuarantineState,
    Worker,
)
from harness.store.received import insert_or_read


def quarantine(
    session: Session,
    *,
    study_id: int,
    hit_id: int,
    assignment_id: str,
    worker_id: str,
    fields: Sequence[tuple[str, str]],
    reason: str,
    recheck_at: datetime | None = None,
) -> tuple[int, bool]:
    """Keep the posted answer fields; (the row's id, whether it is new). A repeat by the same
    worker for the same assignment keeps the first answers (nothing is written).
    ``recheck_at``: when a task server should ask the platform again
    (`harness.store.rechecks`; None: only `harness sync` will)."""
    values = {
        "study_id": study_id,
        "hit_id": hit_id,
        "platform_assignment_id": assignment_id,
        "platform_worker_id": worker_id,
        "fields": [[k, v] for k, v in fields],
        "state": QuarantineState.PENDING,
        "reason": reason[:500],
        "received_at": utcnow(),
        "recheck_at": recheck_at,
        "rechecks": 0,
    }
    # inserted unless the same worker's answers are there (a retry, or a concurrent one): the
    # database's unique constraint decides, in one statement (`harness.store.received`)
    row, created = insert_or_read(
        session,
        QuarantinedSubmission,
        values,
        platform_assignment_id=assignment_id,
        platform_worker_id=worker_id,
    )
    if created:
        payload = {"worker": worker_id, "reason": reason[:500]}
        log_event(
            session,
            EventKind.ASSIGNMENT_QUARANTINED,
            study_id=study_id,
            subject=assignment_id,
            payload=payload,
        )
    assert row.id is not None
    return row.id, created


def resolved_payload(worker_id: str, state: QuarantineState, reason: str) -> dict[str, str]:
    """The ``quarantine.resolved`` event's payload (``worker_id``: the submission's poster)."""
    return {"worker": worker_id, "state": state.value, "reason": reason[:500]}


class Owner(StrEnum):
    """Whose answers an assignment already has, as far as the store knows."""

    SAME = "same"  # the asking worker's (stored, or quarantined and not refused)
    OTHER = "other"  # another worker's, as the platform said


_KEPT_STATE = (
    sa.select(col(QuarantinedSubmission.state))
    .where(
        col(QuarantinedSubmission.platform_assignment_id) == sa.bindparam("assignment"),
        col(QuarantinedSubmission.platform_worker_id) == sa.bindparam("worker"),
    )
    .limit(1)
)
_BY_ID = col(Assignment.platform_assignment_id) == sa.bindparam("assignment")
_WHOSE = sa.select(
    sa.exists().where(_BY_ID).label("stored"),
    sa.select(col(Worker.platform_worker_id))
    .join(Assignment, col(Worker.id) == col(Assignment.worker_id))
    .where(_BY_ID)
    .limit(1)
    .scalar_subquery()
    .label("owner"),
    sa.exists().where(col(Judgment.assignment_id) == col(Assignment.id), _BY_ID).label("answered"),
    _KEPT_STATE.scalar_subquery().label("kept"),
)
"""Built once: a task page asks on every load, and needs neither rows nor their answers; one
statement (`submitted_by`) asks about the stored assignment and the quarantined answers at
once. Of the models' columns, so the session flushes what it holds before reading, as for a
query."""


def submitted_by(session: Session, assignment_id: str, worker_id: str) -> Owner | None:
    """Whether ``assignment_id`` already has answers from ``worker_id`` (SAME), belongs to
    another worker by the platform's word (OTHER), or neither (None). Another worker's
    quarantined answers do not count: they are not the platform's word."""
    whose = session.execute(_WHOSE, {"assignment": assignment_id, "worker": worker_id}).one()
    if whose.stored:
        if whose.owner != worker_id:  # another's (or a stored assignment without its worker)
            return Owner.OTHER
        if whose.answered:
            return Owner.SAME
    if whose.kept is None:
        return None
    return Owner.OTHER if whose.kept is QuarantineState.REFUSED else Owner.SAME
