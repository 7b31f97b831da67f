"""The append-only event log: record what happened and why, never change it."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from harness.store.models import Event


def record_event(
    session: Session,
    kind: str,
    *,
    study_id: int | None = None,
    subject: str | None = None,
    payload: dict[str, Any] | None = None,
) -> Event:
    """Add one event to the log (committed with the caller's transaction)."""
    event = Event(study_id=study_id, kind=kind, subject=subject, payload=payload or {})
    session.add(event)
    return event
