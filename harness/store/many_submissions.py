"""Store the answers of many assignments at once, in the caller's transaction: how settling
quarantined submissions stores them (`harness.platform.submissions.settling`), one or dozens.

Storing each with `store_submission` costs a transaction and several statements, and under
a burst the rechecks' thread waits on every one of those round trips while the request threads
hold the interpreter. Here a batch takes a fixed handful: the workers (read, and the missing
ones inserted), the assignments (one insert), the judgments (one insert of every row), the
events (one insert).

The assignment insert skips a row that exists (``ON CONFLICT DO NOTHING``): one stored
without answers (accepted, sync recorded it from the platform) is marked submitted and takes
them; one with answers already, or another worker's or HIT's, raises `StoreError` for the
whole batch, and the caller rolls back. Exactly once stays the database's: the unique
assignment id and the judgments' unique (assignment, item, position).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from harness.answer import Answer
from harness.clock import utcnow
from harness.errors import StoreError
from harness.store.events import EventKind, log_events
from harness.store.models import Assignment, AssignmentStatus, Hit, Judgment, Worker, aware
from harness.store.received import skipping_insert
from harness.store.submissions import answer_items, judgment_rows, submitted_payload

DIALECTS = ("postgresql", "sqlite")
"""The databases whose ``INSERT ... ON CONFLICT DO NOTHING`` this module uses."""


@dataclass(frozen=True)
class NewSubmission:
    """One assignment's answers, as `store_submission` takes them."""

    hit: Hit
    assignment_id: str
    worker_id: str
    answers: Sequence[Answer]
    submitted_at: datetime
    accepted_at: datetime | None = None  # the platform's; None: not known, the submission's

    @property
    def accepted(self) -> datetime:
        """When the assignment was accepted, never after it was submitted (a platform's clock a
        moment ahead of harness's must not put the acceptance after the submission)."""
        if self.accepted_at is None:
            return aware(self.submitted_at)
        return min(aware(self.accepted_at), aware(self.submitted_at))


def store_new_submissions(session: Session, batch: Sequence[NewSubmission]) -> dict[str, int]:
    """Store every submission of ``batch`` (assignments without answers in the store) as
    `store_submission` would; their assignments' store ids by platform assignment id.

    Raises `StoreError` (the caller must roll back: some rows may be written) when an answer
    names an item not in its HIT's instrument, an assignment appears twice in the batch, or
    the store has answers for one of the assignments already, or holds it as another worker's
    or HIT's.
    """
    if not batch:
        return {}
    dialect = session.get_bind().dialect.name
    if dialect not in DIALECTS:
        raise StoreError(f"storing many submissions at once needs one of {DIALECTS}")
    ids = [s.assignment_id for s in batch]
    if len(set(ids)) != len(ids):
        raise StoreError("an assignment appears twice in one batch of submissions")
    # the instrument and items of each (`StoreError` naming the study for an unknown item)
    items = {s.assignment_id: answer_items(session, s.hit, s.answers) for s in batch}
    workers = _worker_ids(session, dialect, {s.worker_id for s in batch})
    made = _insert_assignments(
        session,
        dialect,
        [
            {
                "hit_id": s.hit.id,
                "worker_id": workers[s.worker_id],
                "platform_assignment_id": s.assignment_id,
                "status": AssignmentStatus.SUBMITTED,
                "accepted_at": s.accepted,
                "submitted_at": s.submitted_at,
            }
            for s in batch
        ],
    )
    if len(made) != len(batch):
        made.update(_accepted(session, [s for s in batch if s.assignment_id not in made], workers))
    rows = []
    for s in batch:
        instrument_id, found = items[s.assignment_id]
        rows += judgment_rows(
            made[s.assignment_id], workers[s.worker_id], instrument_id, s.answers, found
        )
    if rows:
        session.execute(sa.insert(_table(Judgment)), rows)
    log_events(
        session,
        EventKind.ASSIGNMENT_SUBMITTED,
        [
            (s.hit.study_id, s.assignment_id, submitted_payload(s.hit, s.worker_id, s.answers))
            for s in batch
        ],
    )
    return made


def _table(model: Any) -> sa.Table:
    return model.__table__  # type: ignore[no-any-return]


def _worker_ids(session: Session, dialect: str, platform_ids: set[str]) -> dict[str, int]:
    """The workers' store ids by platform id, the missing ones inserted first (of concurrent
    inserts of one worker the database keeps one)."""
    query = sa.select(col(Worker.platform_worker_id), col(Worker.id)).where(
        col(Worker.platform_worker_id).in_(sorted(platform_ids))
    )
    found = {str(p): int(i) for p, i in session.execute(query)}
    missing = sorted(platform_ids - found.keys())
    if missing:
        now = utcnow()
        session.execute(
            skipping_insert(dialect, _table(Worker)),
            [{"platform_worker_id": p, "first_seen": now} for p in missing],
        )
        found.update({str(p): int(i) for p, i in session.execute(query)})
    return found


def _accepted(
    session: Session, batch: Sequence[NewSubmission], workers: Mapping[str, int]
) -> dict[str, int]:
    """The store ids of ``batch``'s assignments stored already without answers (accepted: sync
    recorded them from the platform), each marked submitted now; `StoreError` when one has
    answers already, or is another worker's or HIT's."""
    table = _table(Assignment)
    found = {
        str(r.platform_assignment_id): r
        for r in session.execute(
            sa.select(
                table.c.platform_assignment_id,
                table.c.id,
                table.c.hit_id,
                table.c.worker_id,
                sa.exists().where(_table(Judgment).c.assignment_id == table.c.id).label("answered"),
            ).where(table.c.platform_assignment_id.in_([s.assignment_id for s in batch]))
        )
    }
    out = {}
    for s in batch:
        row = found.get(s.assignment_id)
        if row is None or row.answered:
            raise StoreError(f"assignment {s.assignment_id} was stored meanwhile")
        if row.hit_id != s.hit.id or row.worker_id != workers[s.worker_id]:
            raise StoreError(f"assignment {s.assignment_id} belongs to another worker or HIT")
        session.execute(
            sa.update(table)
            .where(table.c.id == row.id)
            .values(status=AssignmentStatus.SUBMITTED, submitted_at=s.submitted_at)
        )
        out[s.assignment_id] = int(row.id)
    return out


def _insert_assignments(
    session: Session, dialect: str, rows: list[dict[str, Any]]
) -> dict[str, int]:
    """Insert the assignments that are not stored yet; the store ids of those inserted."""
    table = _table(Assignment)
    statement = skipping_insert(dialect, table).returning(
        table.c.platform_assignment_id, table.c.id
    )
    return {str(p): int(i) for p, i in session.execute(statement, rows)}
