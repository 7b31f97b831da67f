"""HIT status and the lazy passage of time: expiry, abandoned assignments, auto-approval.

There is no background thread: `sweep` runs at the start of every request and brings the state
up to the clock's current reading, queueing the notifications each change causes.

Counts follow MTurk's definitions: pending = accepted and not yet submitted, returned or
abandoned; completed = approved or rejected; a Submitted assignment is neither, but it holds its
slot. Status: Disposed after DeleteHIT; otherwise Assignable while not expired and a slot is
free; Unassignable while no slot can be taken but assignments are still being worked on;
Reviewable (or Reviewing, when the requester marked it) once it is expired or full and nothing is
pending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, func, select, update

from harness.platform.mturk_local import models
from harness.platform.mturk_local.notifications import queue_event
from harness.platform.mturk_local.state import Ctx

A = models.assignments
H = models.hits
LIVE_STATUSES = ("Accepted", "Submitted", "Approved", "Rejected")


@dataclass(frozen=True)
class Counts:
    pending: int
    submitted: int
    completed: int

    def available(self, max_assignments: int) -> int:
        return max(0, max_assignments - self.pending - self.submitted - self.completed)


def counts(conn: Connection, hit_id: str) -> Counts:
    rows = conn.execute(
        select(A.c.status, func.count()).where(A.c.hit_id == hit_id).group_by(A.c.status)
    ).all()
    by = {status: n for status, n in rows}
    return Counts(
        pending=by.get("Accepted", 0),
        submitted=by.get("Submitted", 0),
        completed=by.get("Approved", 0) + by.get("Rejected", 0),
    )


def status(hit: Any, c: Counts, now: float) -> str:
    if hit.disposed:
        return "Disposed"
    expired = hit.expiration <= now
    if not expired and c.available(hit.max_assignments) > 0:
        return "Assignable"
    if c.pending > 0:
        return "Unassignable"
    return "Reviewing" if hit.reviewing else "Reviewable"


def sweep(ctx: Ctx) -> None:
    """Apply everything the clock has made due since the last request."""
    conn, now = ctx.conn, ctx.now
    overdue = conn.execute(select(A).where(and_(A.c.status == "Accepted", A.c.deadline <= now)))
    for a in overdue.all():
        conn.execute(update(A).where(A.c.id == a.id).values(status="Abandoned"))
        queue_event(ctx, a.hit_id, "AssignmentAbandoned", a.id, at=a.deadline)
    due = conn.execute(
        select(A).where(and_(A.c.status == "Submitted", A.c.auto_approval_time <= now))
    )
    for a in due.all():
        conn.execute(
            update(A)
            .where(A.c.id == a.id)
            .values(status="Approved", approval_time=a.auto_approval_time)
        )
        queue_event(ctx, a.hit_id, "AssignmentApproved", a.id, at=a.auto_approval_time)
    expired = conn.execute(
        select(H).where(
            and_(H.c.expiration <= now, H.c.expired_notified.is_(False), H.c.disposed.is_(False))
        )
    )
    for hit in expired.all():
        conn.execute(update(H).where(H.c.id == hit.id).values(expired_notified=True))
        queue_event(ctx, hit.id, "HITExpired", at=hit.expiration)
    open_hits = conn.execute(
        select(H).where(and_(H.c.reviewable_notified.is_(False), H.c.disposed.is_(False)))
    )
    for hit in open_hits.all():
        check_reviewable(ctx, hit)


def check_reviewable(ctx: Ctx, hit: Any) -> None:
    """Queue HITReviewable the first time a HIT becomes Reviewable."""
    if hit.reviewable_notified:
        return
    if status(hit, counts(ctx.conn, hit.id), ctx.now) in ("Reviewable", "Reviewing"):
        ctx.conn.execute(update(H).where(H.c.id == hit.id).values(reviewable_notified=True))
        queue_event(ctx, hit.id, "HITReviewable")
