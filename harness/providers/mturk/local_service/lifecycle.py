"""HIT status and the lazy passage of time: expiry, abandoned assignments, auto-approval.

There is no background thread: `sweep` runs at the start of every request and brings the state
up to the clock's current reading, queueing the notifications each change causes. It touches
only what the clock has made due (partial indexes find it), and then only the HITs those changes
concern, so a request does work in proportion to what changed, not to how many HITs are open.

Counts follow MTurk's definitions: pending = accepted and not yet submitted, returned or
abandoned; completed = approved or rejected; a Submitted assignment is neither, but it holds its
slot. They are kept on the HIT row by `set_status`, the one place an assignment changes state.
Status: Disposed after DeleteHIT; otherwise Assignable while not expired and a slot is free;
Unassignable while no slot can be taken but assignments are still being worked on; Reviewable
(or Reviewing, when the requester marked it) once it is expired or full and nothing is pending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, insert, select, text, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.notifications import queue_event
from harness.providers.mturk.local_service.state import Ctx

A = models.assignments
H = models.hits
W = models.workers
# Conditions written as the partial indexes' conditions are (models.py), so SQLite's planner can
# use those indexes: one live assignment per worker and HIT (`ux_assignments_live`), what falls
# due, the HITs with a free slot.
LIVE = text("assignments.status IN ('Accepted', 'Submitted', 'Approved', 'Rejected')")
DEADLINE_DUE = text("assignments.status = 'Accepted'")
APPROVAL_DUE = text("assignments.status = 'Submitted'")
EXPIRY_DUE = text("hits.expired_notified = 0 AND hits.disposed = 0")
HAS_FREE_SLOT = text("hits.disposed = 0 AND hits.n_available > 0")

# Which count on the HIT row (and on the worker row) an assignment in each status adds to.
HIT_COUNT = {
    "Accepted": "n_pending",
    "Submitted": "n_submitted",
    "Approved": "n_completed",
    "Rejected": "n_completed",
}
WORKER_COUNT = {"Approved": "n_approved", "Rejected": "n_rejected"}


@dataclass(frozen=True)
class Counts:
    pending: int
    submitted: int
    completed: int

    def available(self, max_assignments: int) -> int:
        return max(0, max_assignments - self.pending - self.submitted - self.completed)


def counts(hit: Any) -> Counts:
    """The counts kept on a HIT row."""
    return Counts(pending=hit.n_pending, submitted=hit.n_submitted, completed=hit.n_completed)


def status(hit: Any, now: float) -> str:
    if hit.disposed:
        return "Disposed"
    c = counts(hit)
    if hit.expiration > now and c.available(hit.max_assignments) > 0:
        return "Assignable"
    if c.pending > 0:
        return "Unassignable"
    return "Reviewing" if hit.reviewing else "Reviewable"


def reviewable_condition(now: float, reviewing: bool) -> ColumnElement[bool]:
    """SQL for `status(hit, now) == ("Reviewing" if reviewing else "Reviewable")`."""
    full = H.c.n_pending + H.c.n_submitted + H.c.n_completed >= H.c.max_assignments
    return and_(
        H.c.disposed.is_(False),
        (H.c.expiration <= now) | full,
        H.c.n_pending == 0,
        H.c.reviewing.is_(reviewing),
    )


def _move(ctx: Ctx, table: Any, row_id: str, old: str | None, new: str | None) -> None:
    """Move one assignment from count column `old` to `new` on a row (None: not counted).

    On a HIT, an assignment that starts or stops holding a slot also changes `n_available`.
    """
    if old == new:
        return
    changes: dict[str, Any] = {}
    if old is not None:
        changes[old] = table.c[old] - 1
    if new is not None:
        changes[new] = table.c[new] + 1
    if table is H and (old is None) != (new is None):
        changes["n_available"] = H.c.n_available + (1 if new is None else -1)
    ctx.conn.execute(update(table).where(table.c.id == row_id).values(**changes))


def set_status(ctx: Ctx, a: Any, new_status: str, **values: Any) -> None:
    """Change assignment `a` (as read in this transaction) to `new_status`, with its counts."""
    ctx.conn.execute(update(A).where(A.c.id == a.id).values(status=new_status, **values))
    _move(ctx, H, a.hit_id, HIT_COUNT.get(a.status), HIT_COUNT.get(new_status))
    _move(ctx, W, a.worker_id, WORKER_COUNT.get(a.status), WORKER_COUNT.get(new_status))


def take_slot(ctx: Ctx, hit_id: str) -> bool:
    """Count one more pending assignment on the HIT if it is assignable (a free slot, not
    expired or disposed), in one conditional update: False if it was not."""
    taken = ctx.conn.execute(
        update(H)
        .where(
            H.c.id == hit_id,
            H.c.disposed.is_(False),
            H.c.n_available > 0,
            H.c.expiration > ctx.now,
        )
        .values(n_pending=H.c.n_pending + 1, n_available=H.c.n_available - 1)
    )
    return taken.rowcount == 1


def add_assignment(ctx: Ctx, **values: Any) -> None:
    """Insert a newly accepted assignment, whose slot `take_slot` took."""
    ctx.conn.execute(insert(A).values(status="Accepted", **values))


def sweep(ctx: Ctx) -> None:
    """Apply everything the clock has made due since the last request."""
    conn, now = ctx.conn, ctx.now
    touched: set[str] = set()
    overdue = conn.execute(select(A).where(DEADLINE_DUE, A.c.deadline <= now)).all()
    for a in overdue:
        set_status(ctx, a, "Abandoned")
        queue_event(ctx, a.hit_id, "AssignmentAbandoned", a.id, at=a.deadline)
        touched.add(a.hit_id)
    due = conn.execute(select(A).where(APPROVAL_DUE, A.c.auto_approval_time <= now)).all()
    for a in due:
        set_status(ctx, a, "Approved", approval_time=a.auto_approval_time)
        queue_event(ctx, a.hit_id, "AssignmentApproved", a.id, at=a.auto_approval_time)
        touched.add(a.hit_id)
    expired = conn.execute(select(H.c.id, H.c.expiration).where(EXPIRY_DUE, H.c.expiration <= now))
    for hit_id, expiration in expired.all():
        conn.execute(update(H).where(H.c.id == hit_id).values(expired_notified=True))
        queue_event(ctx, hit_id, "HITExpired", at=expiration)
        touched.add(hit_id)
    for hit_id in sorted(touched):
        check_reviewable(ctx, hit_id)


def check_reviewable(ctx: Ctx, hit_id: str) -> None:
    """Queue HITReviewable the first time a HIT becomes Reviewable (after something changed)."""
    hit = ctx.conn.execute(select(H).where(H.c.id == hit_id)).first()
    if hit is None or hit.reviewable_notified or hit.disposed:
        return
    if status(hit, ctx.now) in ("Reviewable", "Reviewing"):
        ctx.conn.execute(update(H).where(H.c.id == hit_id).values(reviewable_notified=True))
        queue_event(ctx, hit_id, "HITReviewable")
