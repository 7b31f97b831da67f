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
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import Mapper
from sqlmodel import Field, SQLModel

from harness.clock import utcnow
from harness.hosting import Hosting
from harness.page_signals import InputKind
from harness.roles import ItemRole
from harness.spec.heuristics import HeuristicKey
from harness.spec.model import Action, StudyType
from harness.store.states import AssignmentStatus as AssignmentStatus  # re-exported
from harness.store.states import DecisionState as DecisionState
from harness.store.states import EventKind as EventKind
from harness.store.states import HitStatus as HitStatus
from harness.store.states import QuarantineState as QuarantineState
from harness.store.states import SlotState as SlotState
from harness.store.states import StudyStatus as StudyStatus
from harness.store.states import by_value

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
SQLModel.metadata.naming_convention = NAMING_CONVENTION


def aware(moment: datetime) -> datetime:
    """A stored time as UTC-aware (SQLite gives it back naive)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _when(nullable: bool = False) -> Any:
    return sa.Column(sa.DateTime(timezone=True), nullable=nullable)


class InstrumentVersion(SQLModel, table=True):
    """One frozen instrument: its hash and the spec it was made from."""

    __tablename__ = "instrument_version"
    id: int | None = Field(default=None, primary_key=True)
    hash: str = Field(max_length=64, unique=True, index=True)
    name: str = Field(max_length=80)
    study_type: StudyType = Field(sa_type=by_value(StudyType, 20))
    spec: dict[str, Any] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    guidelines: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Study(SQLModel, table=True):
    """One run of one instrument version on a platform target, with its budget."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80, unique=True, index=True)
    instrument_id: int = Field(foreign_key="instrument_version.id", index=True)
    # an open set, not an enum: each platform of `harness.platform.registry` (which tests
    # extend at run time) names its own targets, e.g. MTurk's local | sandbox | production
    target: str = Field(max_length=20)
    status: StudyStatus = Field(
        default=StudyStatus.DRAFT, sa_type=sa.Enum(StudyStatus, native_enum=False, length=20)
    )
    budget: Decimal | None = Field(default=None, sa_type=sa.Numeric(12, 2))
    max_bonus: Decimal | None = Field(default=None, sa_type=sa.Numeric(12, 2))  # per bonus
    # of every amount of the study (reward, budget, bonuses): the spec's platform.currency,
    # an ISO 4217 code; studies stored before it was kept are in US dollars
    currency: str = Field(default="USD", max_length=3, sa_column_kwargs={"server_default": "USD"})
    # the spec's smallest acceptable alpha: kept with the study, since two studies of one
    # instrument share its frozen spec (None: stored before it was kept: the frozen spec's)
    alpha_min: float | None = Field(default=None)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class StudyPlatform(SQLModel, table=True):
    """Where and how a study runs: what sync, review, status and expire need after the launch.

    One row per study, written by the launch. Platform ids (the work type, the qualification
    that blocks workers) are filled in as the platform returns them.
    """

    __tablename__ = "study_platform"
    study_id: int = Field(foreign_key="study.id", primary_key=True)
    # an open set, not an enum: a name of `harness.platform.registry` (tests add platforms)
    provider: str = Field(max_length=40)  # e.g. mturk
    launch_id: str = Field(max_length=40)  # tells this study's HITs from another of its name
    endpoint_url: str | None = Field(default=None, max_length=500)  # local target only
    public_url: str | None = Field(default=None, max_length=500)  # task pages (external)
    hosting: Hosting = Field(sa_type=by_value(Hosting, 20))
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
    role: ItemRole = Field(sa_type=by_value(ItemRole, 20))
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
    # when live screening took this assignment's judgments into account (None: not yet)
    screened_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    # the consent given before the first item: its text's SHA-256 and when (None: none asked)
    consent_hash: str | None = Field(default=None, max_length=64)
    consented_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))


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
    role: ItemRole = Field(sa_type=by_value(ItemRole, 20))
    shown_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    answered_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    seconds: float | None = None
    # the showing's page signals (`harness.page_signals`); None: the page sent none
    visible_seconds: float | None = None
    hidden_seconds: float | None = None
    hides: int | None = None
    blurs: int | None = None
    pastes: int | None = None
    input_kind: InputKind | None = Field(default=None, sa_type=by_value(InputKind, 20))
    answered_hidden: bool | None = None


class ScreeningDecision(SQLModel, table=True):
    """A screening heuristic's verdict on a worker, with its evidence and the action taken."""

    __tablename__ = "screening_decision"
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    assignment_id: int | None = Field(default=None, foreign_key="assignment.id")
    heuristic: HeuristicKey = Field(sa_type=by_value(HeuristicKey, 40))
    score: float | None = None
    evidence: int = 0
    threshold: float | None = None
    flag: bool = False
    action: Action = Field(sa_type=sa.Enum(Action, native_enum=False, length=20))
    state: DecisionState = Field(
        default=DecisionState.RECORDED,
        sa_type=sa.Enum(DecisionState, native_enum=False, length=20),
    )
    claimed_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    # who holds the claim: the process and a nonce (`harness.store.owners.new_claim`)
    claimed_by: str | None = Field(default=None, max_length=200)
    details: dict[str, Any] = Field(
        default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Withdrawal(SQLModel, table=True):
    """A participant who withdrew from a study, once (the unique constraint): their judgments
    are kept only as this record, never read into analysis or export
    (`harness.store.withdrawals`)."""

    __table_args__ = (sa.UniqueConstraint("study_id", "worker_id"),)
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    # the assignment (a session on platforms with places) the participant withdrew from
    platform_assignment_id: str = Field(max_length=200)
    withdrawn_at: datetime = Field(sa_column=_when(nullable=False))


class Slot(SQLModel, table=True):
    """One place of a HIT on a platform where harness allocates the work (Prolific, a study
    link): a HIT wants ``max_assignments`` raters, so it has that many slots (positions 0..n-1).

    A slot is taken by a conditional update (`harness.store.allocation`), so of two processes
    taking the same slot exactly one succeeds; ``session_ref`` (the platform's id of the
    participant's session, e.g. Prolific's SESSION_ID) is unique, so one session holds at most
    one slot.
    """

    __table_args__ = (sa.UniqueConstraint("hit_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    hit_id: int = Field(foreign_key="hit.id", index=True)
    position: int
    state: SlotState = Field(
        default=SlotState.OPEN, sa_type=sa.Enum(SlotState, native_enum=False, length=20)
    )
    worker_id: int | None = Field(default=None, foreign_key="worker.id", index=True)
    session_ref: str | None = Field(default=None, max_length=200, unique=True)
    assignment_id: int | None = Field(default=None, foreign_key="assignment.id")
    reserved_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    expires_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))


class QuarantinedSubmission(SQLModel, table=True):
    """Answers posted for an assignment that the platform had not confirmed (yet) belongs to
    the worker who posted them (`harness.store.quarantine`). Kept apart from assignments and
    judgments, so they never count, are never screened or approved, and never block the
    assignment's real worker; at most one per (assignment, worker)."""

    __tablename__ = "quarantined_submission"
    __table_args__ = (sa.UniqueConstraint("platform_assignment_id", "platform_worker_id"),)
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    hit_id: int = Field(foreign_key="hit.id", index=True)
    platform_assignment_id: str = Field(max_length=200, index=True)
    platform_worker_id: str = Field(max_length=200)
    fields: list[list[str]] = Field(sa_column=sa.Column(sa.JSON, nullable=False))
    state: QuarantineState = Field(
        default=QuarantineState.PENDING,
        sa_type=sa.Enum(QuarantineState, native_enum=False, length=20),
    )
    reason: str = Field(default="", max_length=500)
    received_at: datetime = Field(default_factory=utcnow, sa_column=_when())
    resolved_at: datetime | None = Field(default=None, sa_column=_when(nullable=True))
    # when the platform is to be asked again (None: not by a task server; `harness sync` asks
    # about every pending one), and how many times it was asked (`harness.store.rechecks`)
    recheck_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True, index=True)
    )
    rechecks: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class ProcessLease(SQLModel, table=True):
    """A process's lease on the claims it holds: renewed every few seconds while it holds one,
    so that a process on another machine can tell it is gone (`harness.store.owners`)."""

    __tablename__ = "process_lease"
    owner: str = Field(max_length=200, primary_key=True)
    renewed_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class StoreSecret(SQLModel, table=True):
    """A random secret made by and kept in this store (e.g. the key that signs task pages), so
    no secret lives in code and two stores never share one."""

    __tablename__ = "store_secret"
    name: str = Field(max_length=40, primary_key=True)
    value: str = Field(max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when())


class Event(SQLModel, table=True):
    """The append-only log: every intent, result and action, with its reason."""

    id: int | None = Field(default=None, primary_key=True)
    study_id: int | None = Field(default=None, foreign_key="study.id", index=True)
    at: datetime = Field(default_factory=utcnow, sa_column=_when())
    kind: EventKind = Field(sa_type=by_value(EventKind, 60), index=True)
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
