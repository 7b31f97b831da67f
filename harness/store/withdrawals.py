"""Participants who withdrew from a study: recorded once, and left out of every reading of its
judgments (analysis, screening, export, the dashboard), which is all that withdrawing asks of
the store. What was stored stays, as the record that they took part and withdrew. Withdrawing
costs a participant nothing: review approves their submitted work and never rejects, blocks or
asks them to return it (`harness.platform.review`, `harness.platform.actions.reject`)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.store.events import EventKind, record_event
from harness.store.models import Judgment, Withdrawal, Worker
from harness.store.received import insert_or_read, worker_row


def withdraw(session: Session, study_id: int, platform_worker_id: str, assignment_id: str) -> bool:
    """Record that the participant withdrew from the study, from ``assignment_id``; False when
    they had withdrawn already (the database keeps one record: a unique constraint)."""
    worker = worker_row(session, platform_worker_id)
    values = {
        "study_id": study_id,
        "worker_id": worker.id,
        "platform_assignment_id": assignment_id,
        "withdrawn_at": utcnow(),
    }
    if not insert_or_read(session, Withdrawal, values, study_id=study_id, worker_id=worker.id)[1]:
        return False
    record_event(
        session,
        EventKind.PARTICIPANT_WITHDREW,
        study_id=study_id,
        subject=assignment_id,
        payload={"worker": platform_worker_id},
    )
    return True


def has_withdrawn(session: Session, study_id: int, platform_worker_id: str) -> bool:
    query = (
        select(Withdrawal.id)
        .join(Worker, col(Worker.id) == col(Withdrawal.worker_id))
        .where(Withdrawal.study_id == study_id, Worker.platform_worker_id == platform_worker_id)
    )
    return session.exec(query).first() is not None


def withdrawn_workers(session: Session, study_id: int) -> set[int]:
    """The store ids of the workers who withdrew from the study."""
    query = select(Withdrawal.worker_id).where(Withdrawal.study_id == study_id)
    return set(session.exec(query).all())


def not_withdrawn(study_id: int) -> sa.ColumnElement[bool]:
    """A condition on a query of judgments: the judgment's worker has not withdrawn from the
    study."""
    return ~sa.exists().where(
        col(Withdrawal.study_id) == study_id, col(Withdrawal.worker_id) == col(Judgment.worker_id)
    )
