"""Rows made when a worker first shows up, exactly once however many requests race: workers and
assignments.

A burst of workers opens the same page several times at once (a double click, a reload, the
platform's preview and accept), from several server processes. Reading "is it there?" and then
inserting races: two requests both read nothing, both insert, and the loser hits the unique
constraint. Here the database decides: the row is inserted with ``ON CONFLICT DO NOTHING``
(SQLite and PostgreSQL), then read back, so the loser of the race gets the winner's row, and
both requests answer alike. A row that exists already is read without writing anything, so
page loads of known assignments take no write lock.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, SQLModel, select

from harness.clock import utcnow
from harness.errors import StoreError
from harness.store.models import Assignment, AssignmentStatus, Hit, Worker

Row = TypeVar("Row", bound=SQLModel)


def insert_or_read(
    session: Session, model: type[Row], values: dict[str, Any], **key: Any
) -> tuple[Row, bool]:
    """The row of ``model`` whose unique ``key`` columns have these values, and whether this
    call inserted it: inserted with ``values`` (which include the key) unless present, the
    insert returning the new row (one statement); only when nothing was inserted (the row was
    there, or the loser of a race) is it read. Joins the caller's transaction; of concurrent
    callers one inserts and all get the same row. The statements are built once per model
    (and key columns) and take the values as parameters, so SQLAlchemy compiles each once per
    process."""
    dialect = session.get_bind().dialect.name
    made = session.execute(
        _insert_returning(dialect, model), values, execution_options={"populate_existing": True}
    ).scalar_one_or_none()
    if made is not None:
        return made, True
    found = session.execute(
        _by_key(model, tuple(key)), key, execution_options={"populate_existing": True}
    ).scalar_one()
    return found, False


@cache
def _insert_returning(dialect: str, model: type[SQLModel]) -> Any:
    """``INSERT ... ON CONFLICT DO NOTHING RETURNING`` the row, loaded as ``model``."""
    table = model.__table__  # type: ignore[attr-defined]
    statement = skipping_insert(dialect, table).returning(*table.c)
    return select(model).from_statement(statement)


def skipping_insert(dialect: str, table: sa.Table) -> Any:
    """``INSERT ... ON CONFLICT DO NOTHING`` into ``table`` on PostgreSQL or SQLite
    (``dialect``): a row whose unique key is there already is skipped, not an error."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(table).on_conflict_do_nothing()


@cache
def _by_key(model: type[SQLModel], columns: tuple[str, ...]) -> Any:
    """The row of ``model`` whose ``columns`` equal the parameters of the same names."""
    return select(model).where(*(getattr(model, c) == sa.bindparam(c) for c in columns))


def worker_row(session: Session, platform_worker_id: str) -> Worker:
    """The worker's row, created on first sight."""
    found: Worker | None = session.execute(
        _by_key(Worker, ("platform_worker_id",)), {"platform_worker_id": platform_worker_id}
    ).scalar_one_or_none()
    if found is not None:
        return found
    values = {"platform_worker_id": platform_worker_id, "first_seen": utcnow()}
    return insert_or_read(session, Worker, values, platform_worker_id=platform_worker_id)[0]


def accept(
    session: Session,
    hit: Hit,
    platform_assignment_id: str,
    platform_worker_id: str,
    accepted_at: datetime | None = None,
) -> tuple[Assignment, bool]:
    """The assignment's row, created when first seen (accepted), and whether this call created
    it (then no other transaction can have stored anything for it yet); `StoreError` when it
    belongs to another worker or HIT (also when another request created it so a moment ago)."""
    assert hit.id is not None
    key = {"platform_assignment_id": platform_assignment_id}
    assignment = session.execute(
        _by_key(Assignment, ("platform_assignment_id",)), key
    ).scalar_one_or_none()
    worker = worker_row(session, platform_worker_id)
    created = False
    if assignment is None:
        values = {
            "hit_id": hit.id,
            "worker_id": worker.id,
            "platform_assignment_id": platform_assignment_id,
            "status": AssignmentStatus.ACCEPTED,
            "accepted_at": accepted_at or utcnow(),
        }
        assignment, created = insert_or_read(
            session, Assignment, values, platform_assignment_id=platform_assignment_id
        )
    return owned(assignment, worker.id, hit.id), created


def owned(assignment: Assignment, worker_id: int | None, hit_id: int | None) -> Assignment:
    """``assignment``, checked to be this worker's on this HIT: `StoreError` otherwise (an
    assignment id is the platform's, sent by a stranger)."""
    if assignment.worker_id != worker_id or assignment.hit_id != hit_id:
        ref = assignment.platform_assignment_id
        raise StoreError(f"assignment {ref} belongs to another worker or HIT")
    return assignment
