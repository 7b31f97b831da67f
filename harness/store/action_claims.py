"""Claim one platform action (block a worker, reject an assignment, ask for a return) for this
process, by the database, and carry it out once, even when a process dies in the middle.

Two screening decisions can ask for the same action (two heuristics that both block a worker),
and two processes may carry them out at the same moment: each decision is claimed once
(`harness.store.decisions.claim`), but "is this worker blocked yet?" read from the event log
races. `begin_action` asks it under the study's lock (`harness.store.locks`): done already (its
result is logged), in progress (another intent is logged since, and its holder still holds
it: `ActionInProgress`, try later), or this process's to do. An action that can be undone (a
block, by an unblock) is done only while its latest result is not undone: a worker blocked,
unblocked and blocked again is blocked again.

`intent` then records this process's intent, naming it as the holder
(`harness.store.owners`), and commits, which releases the lock before the platform call. It
holds the intent while the caller calls the platform and logs the result; if the call raises,
it logs the failed attempt (``platform.action.failed``), so that a failure is never mistaken
for work in progress.

A holder logs its result before it lets go of its intent, so an intent found let go is read
again for its result: a holder that finished between the two reads is done, not abandoned.

An intent with no result whose holder is gone (a process killed mid-action, found at once on
its machine, within `harness.store.owners.LEASE` from another) is abandoned: the next process to
begin the action resumes it. The platform may have done it already (the process was killed
after the call and before logging the result), so where the platform can tell
(``done_already``: the worker holds MTurk's exclusion qualification, the assignment is
rejected) its result is logged as recovered and the platform is not asked again
(`finish_abandoned`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.errors import StoreError
from harness.store.events import record_event
from harness.store.locks import lock_places, lock_study
from harness.store.models import Event, EventKind
from harness.store.owners import abandoned, hold, new_claim, release

RECOVERED = "the platform shows it done: the process doing it stopped before logging its result"


_PLACES_READ = (EventKind.BLOCKED, EventKind.UNBLOCKED)
"""Results the allocator decides from (`harness.store.allocation`), recorded under the places
lock as well as the study's."""


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
    done_already: Callable[[], bool] | None = None,
) -> bool:
    """Whether this process should do the action on ``subject`` now (True: record its
    `intent` at once; the study's lock is held until it is committed). False when it is done
    already: its latest result is ``done`` (not ``undone``), or an abandoned intent's action
    shows done on the platform (``done_already``, asked only then), whose result is logged now.
    `ActionInProgress` when another holder is doing it. The lock is released unless True."""
    lock_study(session, study_id)
    latest, unfinished = _unfinished(session, study_id, intent, done, subject, undone)
    if latest == done:
        session.commit()
        return False
    now = utcnow()
    for other in unfinished:
        if _in_progress(session, other, reason, now):
            session.commit()
            why = other.payload.get("reason")
            raise ActionInProgress(f"{intent.value} {subject}: another process is doing it ({why})")
    if unfinished:  # let go since the results were read? A holder logs its result first
        latest, unfinished = _unfinished(session, study_id, intent, done, subject, undone)
        if latest == done:
            session.commit()
            return False
    if unfinished and done_already is not None and done_already():
        _recovered(session, study_id, done, subject, unfinished[-1])
        session.commit()
        return False
    return True


def finish_abandoned(
    session: Session,
    study_id: int,
    intent: EventKind,
    done: EventKind,
    subject: str,
    undone: EventKind | None = None,
) -> bool:
    """The platform shows the action on ``subject`` done: log its result for an abandoned
    intent (under the study's lock, so once); False when no intent waits for a result, or its
    holder is still at work (it logs the result itself)."""
    lock_study(session, study_id)
    latest, unfinished = _unfinished(session, study_id, intent, done, subject, undone)
    now = utcnow()
    if unfinished and not any(_in_progress(session, other, None, now) for other in unfinished):
        # let go since the results were read? A holder logs its result first: read again
        latest, unfinished = _unfinished(session, study_id, intent, done, subject, undone)
    if (
        latest == done
        or not unfinished
        or any(_in_progress(session, other, None, now) for other in unfinished)
    ):
        session.commit()
        return False
    _recovered(session, study_id, done, subject, unfinished[-1])
    session.commit()
    return True


@contextmanager
def intent(
    session: Session, study_id: int, kind: EventKind, subject: str, **payload: Any
) -> Iterator[Event]:
    """Record and commit this process's intent to do an action on ``subject``, and hold it
    while the body calls the platform and logs the result; a body that raises logs the failed
    attempt (``platform.action.failed``, with the error), then the error goes on."""
    claim = new_claim()
    event = record_event(
        session, kind, study_id=study_id, subject=subject, payload={**payload, "owner": claim}
    )
    hold(session.get_bind().engine, claim)  # held before anyone can see it
    try:
        session.commit()
        yield event
    except Exception as exc:
        session.rollback()
        _log_failure(session, study_id, kind, subject, event.id, exc)
        raise
    finally:
        release(claim)


def _log_failure(
    session: Session,
    study_id: int,
    kind: EventKind,
    subject: str,
    intent_id: int | None,
    exc: Exception,
) -> None:
    try:
        record_event(
            session,
            EventKind.ACTION_FAILED,
            study_id=study_id,
            subject=subject,
            payload={
                "intent": intent_id,
                "action": kind.value,
                "error": f"{type(exc).__name__}: {exc}"[:500],
            },
        )
        session.commit()
    except Exception:  # noqa: BLE001 - the store is failing too: the caller's error says why
        session.rollback()  # and the intent, held by nobody now, is abandoned


def _unfinished(
    session: Session,
    study_id: int,
    intent: EventKind,
    done: EventKind,
    subject: str,
    undone: EventKind | None,
) -> tuple[EventKind | None, list[Event]]:
    """The latest result of the action on ``subject`` (or None), and the intents logged since
    then whose attempt neither logged a result nor failed, oldest first."""
    results = [done] if undone is None else [done, undone]
    latest = session.exec(
        select(Event.id, Event.kind)
        .where(col(Event.kind).in_(results), Event.subject == subject, Event.study_id == study_id)
        .order_by(col(Event.id).desc())
        .limit(1)
    ).first()
    if latest is not None and latest[1] == done:
        return done, []
    since = latest[0] if latest is not None else 0  # intents before it have their result
    events = session.exec(
        select(Event)
        .where(
            col(Event.kind).in_([intent, EventKind.ACTION_FAILED]),
            Event.subject == subject,
            Event.study_id == study_id,
            col(Event.id) > since,
        )
        .order_by(col(Event.id))
    ).all()
    failed = {e.payload.get("intent") for e in events if e.kind is EventKind.ACTION_FAILED}
    unfinished = [e for e in events if e.kind is intent and e.id not in failed]
    return (None if latest is None else EventKind(latest[1])), unfinished


def _in_progress(session: Session, other: Event, reason: str | None, now: datetime) -> bool:
    """Whether another attempt is under way: its holder still holds it. An intent logged
    before intents named their holder counts while younger than the claim timeout, unless it
    has this attempt's own ``reason`` (a retry of the same decision)."""
    claim = other.payload.get("owner")
    if claim is None and other.payload.get("reason") == reason:
        return False
    return not abandoned(session, claim, other.at, now)


def _recovered(
    session: Session, study_id: int, done: EventKind, subject: str, unfinished: Event
) -> None:
    if done in _PLACES_READ:  # the allocator reads it under the places lock: take it too,
        lock_places(session, study_id)  # after the study's (held), before writing
    payload = {k: v for k, v in unfinished.payload.items() if k != "owner"}
    record_event(
        session,
        done,
        study_id=study_id,
        subject=subject,
        payload={**payload, "intent": unfinished.id, "recovered": RECOVERED},
    )
