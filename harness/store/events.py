"""The append-only event log: record what happened and why, never change it.

Every kind of event is an `EventKind`, so a typo is a type error, not an event nobody finds.
Intents (``*.intent``) are written and committed before the platform call they name; their
results after it, so a crash between the two is visible in the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.store.models import Event, EventKind

__all__ = [
    "EventKind",
    "event_logged",
    "log_event",
    "log_events",
    "record_event",
    "worker_blocked",
]


def record_event(
    session: Session,
    kind: EventKind,
    *,
    study_id: int | None = None,
    subject: str | None = None,
    payload: dict[str, Any] | None = None,
) -> Event:
    """Add one event to the log (committed with the caller's transaction)."""
    event = Event(study_id=study_id, kind=kind, subject=subject, payload=payload or {})
    session.add(event)
    return event


def log_event(
    session: Session,
    kind: EventKind,
    *,
    study_id: int | None = None,
    subject: str | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    """`record_event` written at once as one plain insert, with no object for the session to
    track: for the request paths, where the ORM's bookkeeping is most of an insert's cost."""
    log_events(session, kind, [(study_id, subject, payload or {})])


def log_events(
    session: Session,
    kind: EventKind,
    events: Sequence[tuple[int | None, str | None, dict[str, Any]]],
) -> None:
    """`log_event` for many events of one kind, each (study id, subject, payload), as one
    insert of every row (a round of rechecks settling many submissions at once)."""
    if not events:
        return
    at = utcnow()
    rows = [
        {"study_id": study_id, "at": at, "kind": kind, "subject": subject, "payload": payload}
        for study_id, subject, payload in events
    ]
    session.execute(sa.insert(Event.__table__), rows)  # type: ignore[attr-defined]


def event_logged(
    session: Session, kind: EventKind, subject: str, study_id: int | None = None
) -> bool:
    """Whether an event of ``kind`` about ``subject`` (in ``study_id``, when given) is logged."""
    query = select(Event.id).where(Event.kind == kind, Event.subject == subject)
    if study_id is not None:
        query = query.where(Event.study_id == study_id)
    return session.exec(query.limit(1)).first() is not None


def worker_blocked(session: Session, study_id: int, worker_id: str) -> bool:
    """Whether ``worker_id`` (the platform's id) is blocked in the study now: their latest
    ``worker.blocked`` / ``worker.unblocked`` event is a block."""
    latest = session.exec(
        select(Event.kind)
        .where(
            Event.study_id == study_id,
            Event.subject == worker_id,
            col(Event.kind).in_([EventKind.BLOCKED, EventKind.UNBLOCKED]),
        )
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    return latest == EventKind.BLOCKED
