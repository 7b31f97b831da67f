"""HIT status and the lazy passage of time: expiry, abandoned assignments, auto-approval.

There is no background thread: `sweep` runs at the start of every request and brings the state
up to the clock's current reading, queueing the notifications each change causes.

Counts follow MTurk's definitions: pending = accepted and not yet submitted, returned or
abandoned; completed = approved or rejected; a Submitted assignment is neither, but it holds its
slot. They are counted from the assignments whenever a HIT is read (`COUNT_COLUMNS`).
Status: Disposed after DeleteHIT; otherwise Assignable while not expired and a slot is free;
Unassignable while no slot can be taken but assignments are still being worked on; Reviewable
(or Reviewing, when the requester marked it) once it is expired or full and nothing is pending.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.notifications import queue_event
from harness.providers.mturk.local_service.state import Ctx

A = models.assignments
H = models.hits
# The statuses of an assignment that holds its worker's one place on the HIT (returned and
# abandoned ones do not: the worker may accept the HIT again).
LIVE = ("Accepted", "Submitted", "Approved", "Rejected")


def _count(*statuses: str) -> Any:
    """How many of the HIT's assignments have one of `statuses`, as a column of a HIT query."""
    return (
        select(func.count()).where(A.c.hit_id == H.c.id, A.c.status.in_(statuses)).scalar_subquery()
    )


# MTurk's counts of a HIT's assignments, read with the HIT (`serialize.hit_query`).
COUNT_COLUMNS = (
    _count("Accepted").label("n_pending"),
    _count("Submitted").label("n_submitted"),
    _count("Approved", "Rejected").label("n_completed"),
)


def available(hit: Any) -> int:
    """The slots a worker can still take on a HIT read with its counts (`COUNT_COLUMNS`)."""
    free: int = hit.max_assignments - hit.n_pending - hit.n_submitted - hit.n_completed
    return max(0, free)


def status(hit: Any, now: float) -> str:
    if hit.disposed:
        return "Disposed"
    if hit.expiration > now and available(hit) > 0:
        return "Assignable"
    if hit.n_pending > 0:
        return "Unassignable"
    return "Reviewing" if hit.reviewing else "Reviewable"


def set_status(ctx: Ctx, a: Any, new_status: str, **values: Any) -> None:
    """Change assignment `a` to `new_status` (with other columns in `values`)."""
    ctx.conn.execute(update(A).where(A.c.id == a.id).values(status=new_status, **values))


def sweep(ctx: Ctx) -> None:
    """Apply everything the clock has made due since the last request."""
    conn, now = ctx.conn, ctx.now
    touched: set[str] = set()
    overdue = conn.execute(select(A).where(A.c.status == "Accepted", A.c.deadline <= now)).all()
    for a in overdue:
        set_status(ctx, a, "Abandoned")
        queue_event(ctx, a.hit_id, "AssignmentAbandoned", a.id, at=a.deadline)
        touched.add(a.hit_id)
    due = conn.execute(
        select(A).where(A.c.status == "Submitted", A.c.auto_approval_time <= now)
    ).all()
    for a in due:
        set_status(ctx, a, "Approved", approval_time=a.auto_approval_time)
        queue_event(ctx, a.hit_id, "AssignmentApproved", a.id, at=a.auto_approval_time)
        touched.add(a.hit_id)
    expired = conn.execute(
        select(H.c.id, H.c.expiration).where(
            H.c.expired_notified.is_(False), H.c.disposed.is_(False), H.c.expiration <= now
        )
    )
    for hit_id, expiration in expired.all():
        conn.execute(update(H).where(H.c.id == hit_id).values(expired_notified=True))
        queue_event(ctx, hit_id, "HITExpired", at=expiration)
        touched.add(hit_id)
    for hit_id in sorted(touched):
        check_reviewable(ctx, hit_id)


def check_reviewable(ctx: Ctx, hit_id: str) -> None:
    """Queue HITReviewable the first time a HIT becomes Reviewable (after something changed)."""
    hit = ctx.conn.execute(select(H, *COUNT_COLUMNS).where(H.c.id == hit_id)).first()
    if hit is None or hit.reviewable_notified or hit.disposed:
        return
    if status(hit, ctx.now) in ("Reviewable", "Reviewing"):
        ctx.conn.execute(update(H).where(H.c.id == hit_id).values(reviewable_notified=True))
        queue_event(ctx, hit_id, "HITReviewable")
