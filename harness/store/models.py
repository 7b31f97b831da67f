"""The judgment store's tables (SQLModel): studies, instrument versions, items, HITs,
assignments, workers, judgments, screening decisions and an append-only event log.

Money is stored as ``Numeric(12, 2)`` and read as `Decimal`; times are timezone-aware UTC.
A judgment is unique per (assignment, item, position), so a repeated submission cannot
duplicate it; every judgment carries its instrument version, so data from two instrument
versions is never silently pooled.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import Mapper
from sqlmodel import Field, SQLModel

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
SQLModel.metadata.naming_convention = NAMING_CONVENTION


def utcnow() -> datetime:
    return datetime.now(UTC)


def _when(nullable: bool = False) -> Any:
    return sa.Column(sa.DateTime(timezone=True), nullable=nullable)


class StudyStatus(StrEnum):
    DRAFT = "draft"
    LAUNCHING = "launching"
    RUNNING = "running"
    FINISHED = "finished"
    EXPIRED = "expired"


class HitStatus(StrEnum):
    PLANNED = "planned"  # intent recorded, not yet posted
    ASSIGNABLE = "assignable"
    UNASSIGNABLE = "unassignable"
    REVIEWABLE = "reviewable"
    REVIEWING = "reviewing"
    DISPOSED = "disposed"


class AssignmentStatus(StrEnum):
    ACCEPTED = "accepted"
    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"
    RETURNED = "returned"
    ABANDONED = "abandoned"


class InstrumentVersion(SQLModel, table=True):
    """One frozen instrument: its hash and the spec it was made from."""

    __tablename__ = "instrument_version"
    id: int | None = Field(default=None, primary_key=True)
    hash: str = Field(max_length=64, unique=True, index=True)
    name: str = Field(max_length=80)
    study_type: str = Field(max_length=20)
    spec: dict[str, Any] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    guidelines: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Study(SQLModel, table=True):
    """One run of one instrument version on a platform target, with its budget."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80, unique=True, index=True)
    instrument_id: int = Field(foreign_key="instrument_version.id", index=True)
    target: str = Field(max_length=20)  # local | sandbox | production
    status: StudyStatus = Field(
        default=StudyStatus.DRAFT, sa_type=sa.Enum(StudyStatus, native_enum=False, length=20)
    )
    budget: Decimal | None = Field(default=None, sa_type=sa.Numeric(12, 2))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class StudyPlatform(SQLModel, table=True):
    """Where and how a study runs: what sync, review, status and expire need after the launch.

    One row per study, written by the launch. Platform ids (the work type, the qualification
    that blocks workers) are filled in as the platform returns them.
    """

    __tablename__ = "study_platform"
    study_id: int = Field(foreign_key="study.id", primary_key=True)
    provider: str = Field(max_length=40)  # e.g. mturk
    launch_id: str = Field(max_length=40)  # tells this study's HITs from another of its name
    endpoint_url: str | None = Field(default=None, max_length=500)  # local target only
    public_url: str | None = Field(default=None, max_length=500)  # task pages (external)
    hosting: str = Field(max_length=20)  # external | mturk
    spec_path: str = Field(max_length=1000)
    reward: Decimal = Field(sa_type=sa.Numeric(12, 2))
    assignments_per_hit: int
    work_type_id: str | None = Field(default=None, max_length=200)
    block_ref: str | None = Field(default=None, max_length=200)
    notification_queue: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Item(SQLModel, table=True):
    """One item of an instrument version (content or control), with what the worker sees."""

    __table_args__ = (sa.UniqueConstraint("instrument_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    instrument_id: int = Field(foreign_key="instrument_version.id", index=True)
    key: str = Field(max_length=200)  # the item_id of the long table
    role: str = Field(max_length=20)
    display: dict[str, Any] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    gold: float | None = None
    group: str | None = Field(default=None, max_length=100)


class Worker(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    platform_worker_id: str = Field(max_length=200, unique=True, index=True)
    first_seen: datetime = Field(default_factory=utcnow, sa_column=_when())


class Hit(SQLModel, table=True):
    """One unit of work of a study: its index in the plan and, once posted, the platform's id."""

    __table_args__ = (sa.UniqueConstraint("study_id", "index"),)
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    index: int
    platform_hit_id: str | None = Field(default=None, max_length=200, unique=True)
    status: HitStatus = Field(
        default=HitStatus.PLANNED, sa_type=sa.Enum(HitStatus, native_enum=False, length=20)
    )
    max_assignments: int
    items: list[str] = Field(
        sa_column=sa.Column(sa.JSON, nullable=False)
    )  # item keys in plan order
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Assignment(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    hit_id: int = Field(foreign_key="hit.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    platform_assignment_id: str = Field(max_length=200, unique=True, index=True)
    status: AssignmentStatus = Field(
        default=AssignmentStatus.ACCEPTED,
        sa_type=sa.Enum(AssignmentStatus, native_enum=False, length=20),
    )
    accepted_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    submitted_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))


class Judgment(SQLModel, table=True):
    """One worker's answer on one showing of one item."""

    __table_args__ = (sa.UniqueConstraint("assignment_id", "item_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    item_id: int = Field(foreign_key="item.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    instrument_id: int = Field(foreign_key="instrument_version.id", index=True)
    position: int
    value: float | None = None
    skipped: bool = False
    role: str = Field(max_length=20)
    shown_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    answered_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    seconds: float | None = None


class ScreeningDecision(SQLModel, table=True):
    """A screening heuristic's verdict on a worker, with its evidence and the action taken."""

    __tablename__ = "screening_decision"
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    assignment_id: int | None = Field(default=None, foreign_key="assignment.id")
    heuristic: str = Field(max_length=40)
    score: float | None = None
    evidence: int = 0
    threshold: float | None = None
    flag: bool = False
    action: str = Field(max_length=20)
    applied: bool = False
    details: dict[str, Any] = Field(
        default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Event(SQLModel, table=True):
    """The append-only log: every intent, result and action, with its reason."""

    id: int | None = Field(default=None, primary_key=True)
    study_id: int | None = Field(default=None, foreign_key="study.id", index=True)
    at: datetime = Field(default_factory=utcnow, sa_column=_when())
    kind: str = Field(max_length=60, index=True)
    subject: str | None = Field(default=None, max_length=200)
    payload: dict[str, Any] = Field(
        default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False)
    )


class AppendOnlyError(RuntimeError):
    """Raised when code tries to change or delete an event."""


@event.listens_for(Event, "before_update")
@event.listens_for(Event, "before_delete")
def _refuse_change(mapper: Mapper[Any], connection: sa.Connection, target: Event) -> None:
    raise AppendOnlyError(f"event {target.id} is append-only: record a new event instead")
