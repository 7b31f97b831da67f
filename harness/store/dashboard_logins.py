"""The dashboard's logins, kept in the store so that every process serving it (gunicorn's
workers, a restarted server) sees the same: failed attempts per client address, each one
past the first few doubling the wait before the next; and sessions ended by a logout, which
no copy of the session's cookie opens again."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from sqlmodel import Session, col, func, select

from harness.clock import utcnow
from harness.store.events import event_logged, record_event
from harness.store.models import Event, EventKind, aware

FREE_FAILURES = 5
"""Failed attempts a client may make in `WINDOW` before each further one makes it wait."""
WINDOW = timedelta(minutes=15)
MAX_WAIT = 300.0
"""The longest wait (seconds) however many attempts failed."""


def login_wait(session: Session, client: str, now: datetime | None = None) -> float:
    """Seconds ``client`` must wait before trying again (0: now): after `FREE_FAILURES`
    failed attempts since its last success (within `WINDOW`), 1 s, then twice as long after
    each further failure, up to `MAX_WAIT`."""
    at = now or utcnow()
    since = at - WINDOW
    success = session.exec(
        select(func.max(Event.at)).where(
            Event.kind == EventKind.DASHBOARD_LOGIN, Event.subject == client
        )
    ).one()
    if success is not None:
        since = max(since, aware(success))
    failures, last = session.exec(
        select(func.count(), func.max(Event.at)).where(
            Event.kind == EventKind.DASHBOARD_LOGIN_FAILED,
            Event.subject == client,
            col(Event.at) > since,
        )
    ).one()
    if failures < FREE_FAILURES or last is None:
        return 0.0
    delay = min(MAX_WAIT, 2.0 ** (failures - FREE_FAILURES))
    return max(0.0, (aware(last) + timedelta(seconds=delay) - at).total_seconds())


def login_failed(session: Session, client: str) -> None:
    record_event(session, EventKind.DASHBOARD_LOGIN_FAILED, subject=client)


def login_succeeded(session: Session, client: str) -> None:
    record_event(session, EventKind.DASHBOARD_LOGIN, subject=client)


def end_session(session: Session, session_id: str) -> None:
    """Log the session out for good: every copy of its cookie is refused from now on."""
    record_event(session, EventKind.DASHBOARD_LOGOUT, subject=_hashed(session_id))


def session_ended(session: Session, session_id: str) -> bool:
    return event_logged(session, EventKind.DASHBOARD_LOGOUT, _hashed(session_id))


def _hashed(session_id: str) -> str:
    """What the log keeps of a session id: its hash, never the id."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:40]
