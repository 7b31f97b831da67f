"""When the platform is asked again about a quarantined submission: a schedule kept in the
store, so any task-server process carries it out, also after the one that received the
submission stopped.

MTurk vouches for an assignment only once the worker has completed it there, a moment after the
task page posted its answers: the submission is quarantined (`harness.store.quarantine`) with
its first recheck due `RECHECK_DELAYS[0]` seconds later (`first_recheck`). Every task-server
process polls for due rechecks (`due_rechecks`) and takes each with a conditional update
(`take_recheck`): of several processes, exactly one asks the platform, and the same update
schedules the next recheck, so a process killed in the middle loses only its one ask. After
the last delay a pending submission is left to `harness sync`, which asks about every one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from harness.store.models import QuarantinedSubmission, QuarantineState, utcnow

RECHECK_DELAYS = (0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 15.0, 15.0)
"""Seconds before each recheck of a quarantined submission (about a minute in all; dense at
first, when the worker's browser is completing the assignment on MTurk)."""


def first_recheck(now: datetime | None = None) -> datetime:
    """When a submission quarantined now is first asked about again."""
    return (now or utcnow()) + timedelta(seconds=RECHECK_DELAYS[0])


def due_rechecks(
    session: Session, now: datetime | None = None, limit: int = 100
) -> list[tuple[int, int]]:
    """Pending quarantined submissions whose recheck is due: (row id, rechecks done so far),
    the longest due first."""
    query = (
        select(QuarantinedSubmission.id, QuarantinedSubmission.rechecks)
        .where(
            QuarantinedSubmission.state == QuarantineState.PENDING,
            col(QuarantinedSubmission.recheck_at) <= (now or utcnow()),
        )
        .order_by(col(QuarantinedSubmission.recheck_at))
        .limit(limit)
    )
    return [(int(i), int(n)) for i, n in session.exec(query) if i is not None]


def next_recheck(session: Session) -> datetime | None:
    """When the next recheck of any pending quarantined submission is due (None: none is)."""
    return session.exec(
        select(func.min(QuarantinedSubmission.recheck_at)).where(
            QuarantinedSubmission.state == QuarantineState.PENDING
        )
    ).first()


@dataclass(frozen=True)
class Taken:
    """A recheck this process took: when the one after it is due (None: it is the last)."""

    next_at: datetime | None


def take_recheck(
    session: Session, row_id: int, done: int, now: datetime | None = None
) -> Taken | None:
    """Take the recheck of row ``row_id`` that follows ``done`` rechecks, scheduling the next,
    and commit; None when another process took it (or the row is settled, or not due)."""
    at = now or utcnow()
    following = done + 1
    due = (
        at + timedelta(seconds=RECHECK_DELAYS[following])
        if following < len(RECHECK_DELAYS)
        else None
    )
    table = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
    result = session.execute(
        sa.update(table)
        .where(
            table.c.id == row_id,
            table.c.state == QuarantineState.PENDING.name,
            table.c.rechecks == done,
            table.c.recheck_at <= at,
        )
        .values(rechecks=following, recheck_at=due)
    )
    session.commit()
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return None
    return Taken(due)


def stop_rechecks(session: Session, row_id: int) -> None:
    """Ask the platform no more about row ``row_id`` (its answer will not change); `harness
    sync` still settles it. Joins the caller's transaction."""
    table = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
    session.execute(sa.update(table).where(table.c.id == row_id).values(recheck_at=None))
