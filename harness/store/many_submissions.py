"""Store the answers of many new assignments at once, in the caller's transaction.

A round of rechecks verifies dozens of quarantined submissions together (`harness.platform.
settling`); storing each with `store_submission` costs about seven statements and a
transaction of its own, and under a burst the rechecks' thread waits on every one of those
round trips while the request threads hold the interpreter. Here a batch takes a fixed handful:
the workers (read, and the missing ones inserted), the assignments (one insert), the judgments
(one insert of every row), the events (one insert).

Only assignments the store has never seen are taken: the assignment insert skips a row that
exists (``ON CONFLICT DO NOTHING``), and if any was skipped the whole batch raises
`StoreError`, so the caller rolls back and settles those claims one by one, where an existing
assignment is handled (`store_submission`). Exactly once stays the database's: the unique
assignment id and the judgments' unique (assignment, item, position).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from harness.answer import Answer
from harness.errors import StoreError
from harness.store.events import EventKind
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Event,
    Hit,
    Judgment,
    Worker,
    utcnow,
)
from harness.store.posted import hit_facts, hit_items
from harness.store.submissions import judgment_rows, submitted_payload

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


def store_new_submissions(session: Session, batch: Sequence[NewSubmission]) -> dict[str, int]:
    """Store every submission of ``batch`` (assignments new to the store) as `store_submission`
    would; their assignments' store ids by platform assignment id.

    Raises `StoreError` (the caller must roll back: some rows may be written) when an answer
    names an item not in its HIT's instrument, an assignment appears twice in the batch, or
    the store has one of the assignments already.
    """
    if not batch:
        return {}
    dialect = session.get_bind().dialect.name
    if dialect not in DIALECTS:
        raise StoreError(f"storing many submissions at once needs one of {DIALECTS}")
    ids = [s.assignment_id for s in batch]
    if len(set(ids)) != len(ids):
        raise StoreError("an assignment appears twice in one batch of submissions")
    facts = {s.hit.id: hit_facts(session, s.hit) for s in batch}
    items = {}
    for s in batch:
        instrument = facts[s.hit.id].instrument_id
        keys = {a.item_key for a in s.answers}
        found = hit_items(session, s.hit, instrument, keys)
        unknown = sorted(keys - found.keys())
        if unknown:
            raise StoreError(
                f"assignment {s.assignment_id}: items not in its instrument: "
                f"{', '.join(unknown[:5])}"
            )
        items[s.assignment_id] = found
    workers = _worker_ids(session, dialect, {s.worker_id for s in batch})
    now = utcnow()
    made = _insert_assignments(session, dialect, [
        {"hit_id": s.hit.id, "worker_id": workers[s.worker_id],
         "platform_assignment_id": s.assignment_id, "status": AssignmentStatus.SUBMITTED,
         "accepted_at": now, "submitted_at": s.submitted_at}
        for s in batch
    ])  # fmt: skip
    if len(made) != len(batch):
        stored = sorted(set(ids) - made.keys())
        raise StoreError(f"assignments stored already: {', '.join(stored[:5])}")
    rows = [
        row
        for s in batch
        for row in judgment_rows(
            made[s.assignment_id],
            workers[s.worker_id],
            facts[s.hit.id].instrument_id,
            s.answers,
            items[s.assignment_id],
        )  # fmt: skip
    ]
    if rows:
        session.execute(sa.insert(_table(Judgment)), rows)
    session.execute(sa.insert(_table(Event)), [
        {"study_id": s.hit.study_id, "at": now, "kind": EventKind.ASSIGNMENT_SUBMITTED,
         "subject": s.assignment_id,
         "payload": submitted_payload(s.hit, s.worker_id, s.answers)}
        for s in batch
    ])  # fmt: skip
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
            _insert(dialect, _table(Worker)).on_conflict_do_nothing(),
            [{"platform_worker_id": p, "first_seen": now} for p in missing],
        )
        found.update({str(p): int(i) for p, i in session.execute(query)})
    return found


def _insert_assignments(
    session: Session, dialect: str, rows: list[dict[str, Any]]
) -> dict[str, int]:
    """Insert the assignments that are not stored yet; the store ids of those inserted."""
    table = _table(Assignment)
    statement = (
        _insert(dialect, table)
        .on_conflict_do_nothing()
        .returning(table.c.platform_assignment_id, table.c.id)
    )
    return {str(p): int(i) for p, i in session.execute(statement, rows)}


def _insert(dialect: str, table: sa.Table) -> Any:
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
