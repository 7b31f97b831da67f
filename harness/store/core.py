"""The store's tables as SQLAlchemy Core sees them, for readers that must start quickly.

Importing the ORM models (SQLModel, pydantic and the mapped classes) costs a command more
CPU than everything else it does; `harness status` reads through these tables instead. Each
is a lightweight ``sa.table`` naming only the columns its readers use, typed as the models
type them so that values read back alike (Decimal money, enums, JSON, aware times);
`tests/store/test_core_tables.py` keeps them equal to the models.

A reader takes a ``Reader``, an open connection or an ORM session: `rows` flushes a
session first, so a Core query sees what the session added, as an ORM query would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from harness.spec.heuristics import HeuristicKey
from harness.store.states import (
    AssignmentStatus,
    DecisionState,
    EventKind,
    HitStatus,
    QuarantineState,
    StudyStatus,
    by_value,
)

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    Reader = sa.Connection | Session


def _money() -> sa.Numeric[Any]:
    return sa.Numeric(12, 2)


def _when() -> sa.DateTime:
    return sa.DateTime(timezone=True)


study = sa.table(
    "study",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("target", sa.String),
    sa.column("status", sa.Enum(StudyStatus, native_enum=False, length=20)),
    sa.column("budget", _money()),
    sa.column("instrument_id", sa.Integer),
    sa.column("currency", sa.String),
)
study_platform = sa.table(
    "study_platform",
    sa.column("study_id", sa.Integer),
    sa.column("provider", sa.String),
    sa.column("reward", _money()),
    sa.column("assignments_per_hit", sa.Integer),
)
instrument_version = sa.table(
    "instrument_version", sa.column("id", sa.Integer), sa.column("spec", sa.JSON)
)
item = sa.table("item", sa.column("id", sa.Integer), sa.column("key", sa.String))
hit = sa.table(
    "hit",
    sa.column("id", sa.Integer),
    sa.column("study_id", sa.Integer),
    sa.column("platform_hit_id", sa.String),
    sa.column("status", sa.Enum(HitStatus, native_enum=False, length=20)),
    sa.column("max_assignments", sa.Integer),
    sa.column("items", sa.JSON),
)
assignment = sa.table(
    "assignment",
    sa.column("id", sa.Integer),
    sa.column("hit_id", sa.Integer),
    sa.column("status", sa.Enum(AssignmentStatus, native_enum=False, length=20)),
    sa.column("submitted_at", _when()),
)
judgment = sa.table(
    "judgment",
    sa.column("assignment_id", sa.Integer),
    sa.column("item_id", sa.Integer),
    sa.column("worker_id", sa.Integer),
    sa.column("instrument_id", sa.Integer),
)
screening_decision = sa.table(
    "screening_decision",
    sa.column("id", sa.Integer),
    sa.column("study_id", sa.Integer),
    sa.column("worker_id", sa.Integer),
    sa.column("assignment_id", sa.Integer),
    sa.column("heuristic", by_value(HeuristicKey, 40)),
    sa.column("flag", sa.Boolean),
    sa.column("state", sa.Enum(DecisionState, native_enum=False, length=20)),
)
quarantined_submission = sa.table(
    "quarantined_submission",
    sa.column("study_id", sa.Integer),
    sa.column("state", sa.Enum(QuarantineState, native_enum=False, length=20)),
)
event = sa.table(
    "event",
    sa.column("id", sa.Integer),
    sa.column("study_id", sa.Integer),
    sa.column("kind", by_value(EventKind, 60)),
    sa.column("subject", sa.String),
    sa.column("payload", sa.JSON),
)
study_arm = sa.table(
    "study_arm",
    sa.column("id", sa.Integer),
    sa.column("study_id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("position", sa.Integer),
    sa.column("instrument_id", sa.Integer),
)
arm_hit = sa.table("arm_hit", sa.column("hit_id", sa.Integer), sa.column("arm_id", sa.Integer))
worker_arm = sa.table(
    "worker_arm", sa.column("study_id", sa.Integer), sa.column("arm_id", sa.Integer)
)


def unknown_study_message(db: Reader, name: str) -> str:
    """The one message for a study name the store does not know."""
    names = sorted(n for (n,) in rows(db, sa.select(study.c.name)))
    held = f"studies: {', '.join(names)}" if names else "it holds no study yet"
    return f"no study named {name!r} in the store ({held})"


def never_launched_message(name: str) -> str:
    """The one message for a study that a launch never put on a platform."""
    return f"study {name!r} was never launched (no platform record)"


def rows(db: Reader, statement: sa.Executable) -> Sequence[Any]:
    """The rows (named tuples) ``statement`` selects, from a connection or a session (flushed
    first)."""
    if not isinstance(db, sa.Connection):
        db.flush()
    return db.execute(statement).all()
