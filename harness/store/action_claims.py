"""Claim one platform action (block a worker, reject an assignment) for this process, by the
database, before its intent is recorded.

Two screening decisions can ask for the same action (two heuristics that both block a worker),
and two processes may carry them out at the same moment: each decision is claimed once
(`harness.store.decisions.claim`), but "is this worker blocked yet?" read from the event log
races. `begin_action` asks it under the study's lock (`harness.store.locks`): done already
(its result is logged), in progress (another's intent is logged, recent, with another reason:
`ActionInProgress`, try later), or this process's to do. An action that can be undone (a
block, by an unblock) is done only while its latest result is not undone: a worker blocked,
unblocked and blocked again is blocked again. The caller then records its intent
and commits, which releases the lock before the platform call. An intent older than
`CLAIM_TIMEOUT` with no result belongs to a process that died: the action is done again
(every platform action is idempotent).
"""

from __future__ import annotations

from datetime import UTC

from sqlmodel import Session, col, select

from harness.errors import StoreError
from harness.store.decisions import CLAIM_TIMEOUT
from harness.store.locks import lock_study
from harness.store.models import Event, EventKind, utcnow


class ActionInProgress(StoreError):
    """Another process has recorded its intent to do this action and not its result yet."""


def begin_action(
    session: Session,
    study_id: int,
    intent: EventKind,
    done: EventKind,
    subject: str,
    reason: str,
    undone: EventKind | None = None,
) -> bool:
    """Whether this process should do the action on ``subject`` now (True: record its intent
    and commit at once; the study's lock is held until then). False when it is done already
    (its latest result is ``done``, not ``undone``); `ActionInProgress` when another process
    is doing it (an intent logged since that latest result). The lock is released on both."""
    lock_study(session, study_id)
    results = [done] if undone is None else [done, undone]
    latest = session.exec(
        select(Event.id, Event.kind)
        .where(col(Event.kind).in_(results), Event.subject == subject, Event.study_id == study_id)
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    if latest is not None and latest[1] == done:
        session.commit()
        return False
    since = latest[0] if latest is not None else 0  # intents before it have their result
    stale = utcnow() - CLAIM_TIMEOUT
    intents = session.exec(
        select(Event)
        .where(
            Event.kind == intent,
            Event.subject == subject,
            Event.study_id == study_id,
            col(Event.id) > since,
        )
        .order_by(col(Event.id))
    ).all()
    for other in intents:
        at = other.at if other.at.tzinfo is not None else other.at.replace(tzinfo=UTC)
        if other.payload.get("reason") != reason and at > stale:
            session.commit()
            why = other.payload.get("reason")
            raise ActionInProgress(f"{intent.value} {subject}: another process is doing it ({why})")
    return True
