"""When the platform is asked again about a quarantined submission: a schedule kept in the
store, so any task-server process carries it out, also after the one that received the
submission stopped.

MTurk vouches for an assignment only once the worker has completed it there, a moment after the
task page posted its answers: the submission is quarantined (`harness.store.quarantine`) with
its first recheck due `RECHECK_DELAYS[0]` seconds later (`first_recheck`). Every task-server
process polls for due rechecks (`due_rechecks`) and takes them with a conditional update
(`take_rechecks`): of several processes, exactly one asks the platform, and the same update
schedules the next recheck, so a process killed in the middle loses only its one ask. After
the last delay a pending submission is left to `harness sync`, which asks about every one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.store.models import QuarantinedSubmission, QuarantineState

RECHECK_DELAYS = (0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 15.0, 15.0)
"""Seconds before each recheck of a quarantined submission (about a minute in all; dense at
first, when the worker's browser is completing the assignment on MTurk)."""


def first_recheck(now: datetime | None = None) -> datetime:
    """When a submission quarantined now is first asked about again."""
    return (now or utcnow()) + timedelta(seconds=RECHECK_DELAYS[0])


def due_rechecks(session: Session, now: datetime | None = None) -> list[tuple[int, int]]:
    """Pending quarantined submissions whose recheck is due: (row id, rechecks done so far),
    the longest due first (at most 100)."""
    query = (
        select(QuarantinedSubmission.id, QuarantinedSubmission.rechecks)
        .where(
            QuarantinedSubmission.state == QuarantineState.PENDING,
            col(QuarantinedSubmission.recheck_at) <= (now or utcnow()),
        )
        .order_by(col(QuarantinedSubmission.recheck_at))
        .limit(100)
    )
    return [(int(i), int(n)) for i, n in session.exec(query) if i is not None]


@dataclass(frozen=True)
class Taken:
    """A recheck this process took: when the one after it is due (None: it is the last)."""

    next_at: datetime | None


def take_rechecks(
    session: Session, due: Sequence[tuple[int, int]], now: datetime | None = None
) -> dict[int, Taken]:
    """Take every recheck of ``due`` (row id, rechecks done so far) that no other process took,
    scheduling the next of each, in one conditional update per number of rechecks done (the
    next delay depends on it), and commit; the rechecks taken, by row id."""
    at = now or utcnow()
    table = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
    by_done: dict[int, list[int]] = {}
    for row_id, done in due:
        by_done.setdefault(done, []).append(row_id)
    taken: dict[int, Taken] = {}
    for done, ids in sorted(by_done.items()):
        following = done + 1
        next_at = (
            at + timedelta(seconds=RECHECK_DELAYS[following])
            if following < len(RECHECK_DELAYS)
            else None
        )
        still_due = (
            table.c.id.in_(ids),
            table.c.state == QuarantineState.PENDING.name,
            table.c.rechecks == done,
            table.c.recheck_at <= at,
        )
        # rows locked in one order, those another process is taking skipped (PostgreSQL; on
        # SQLite one writer at a time): two processes taking overlapping rows never deadlock
        free = (
            sa.select(table.c.id)
            .where(*still_due)
            .order_by(table.c.id)
            .with_for_update(skip_locked=True)
        )
        result = session.execute(
            sa.update(table)
            .where(table.c.id.in_(free), *still_due)
            .values(rechecks=following, recheck_at=next_at)
            .returning(table.c.id)
        )
        taken.update((int(row_id), Taken(next_at)) for (row_id,) in result)
    session.commit()
    return taken


def stop_rechecks(session: Session, row_id: int) -> None:
    """Ask the platform no more about row ``row_id`` (its answer will not change); `harness
    sync` still settles it. Joins the caller's transaction."""
    table = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
    session.execute(sa.update(table).where(table.c.id == row_id).values(recheck_at=None))
