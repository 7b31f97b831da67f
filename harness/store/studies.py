"""Find a study in the store: the one lookup by name, used at every edge (command or request).

A command or a request turns a study's name into rows once, here, and hands the rows down:
`find_study` for any study, `launched_study` for one that a launch put on a platform (with its
`StudyPlatform` row: provider, target endpoint, hosting, platform references).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.errors import InputError, StudyNotFound
from harness.store.core import never_launched_message, unknown_study_message
from harness.store.models import (
    Assignment,
    Hit,
    InstrumentVersion,
    Study,
    StudyPlatform,
    StudyStatus,
    aware,
)

if TYPE_CHECKING:
    import pandas as pd


def find_study(session: Session, name: str) -> Study:
    """The study called ``name``; `StudyNotFound` naming the studies the store holds."""
    study = study_named(session, name)
    if study is None:
        raise StudyNotFound(unknown_study_message(session, name))
    return study


def study_named(session: Session, name: str) -> Study | None:
    """The study called ``name``, or None (for callers to whom a missing study is normal)."""
    return session.exec(select(Study).where(Study.name == name)).first()


def study_status(session: Session, study_id: int) -> StudyStatus:
    """The study's status as the database has it now (not as a row read earlier says)."""
    return StudyStatus(session.exec(select(Study.status).where(Study.id == study_id)).one())


@dataclass(frozen=True)
class LaunchedStudy:
    """A launched study's rows, read once at the edge and passed on: the study and where it runs.

    The rows are detached snapshots: code that changes a study reads its row again by
    ``study.id`` in its own transaction.
    """

    study: Study
    platform: StudyPlatform

    @property
    def id(self) -> int:
        assert self.study.id is not None
        return self.study.id

    @property
    def name(self) -> str:
        return self.study.name

    @property
    def target(self) -> str:
        return self.study.target


def study_platform(session: Session, study: Study) -> StudyPlatform:
    """Where ``study`` runs, as its launch recorded it; `InputError` if it was never launched."""
    found = session.get(StudyPlatform, study.id)
    if found is None:
        raise InputError(never_launched_message(study.name))
    return found


def launched_study(session: Session, name: str) -> LaunchedStudy:
    """The launched study called ``name`` (see `find_study` and `study_platform`)."""
    return launched(session, find_study(session, name))


def read_launched(engine: sa.Engine, name: str) -> LaunchedStudy:
    """The launched study called ``name``, read in a transaction of its own: what a command
    or the demo resolves once, at its edge, and hands on."""
    from harness.store.database import session_scope

    with session_scope(engine) as session:
        return launched_study(session, name)


def launched(session: Session, study: Study) -> LaunchedStudy:
    """``study`` with its platform row."""
    return LaunchedStudy(study, study_platform(session, study))


def instrument_of(session: Session, study: Study) -> InstrumentVersion:
    """The frozen instrument version ``study`` runs."""
    version = session.get(InstrumentVersion, study.instrument_id)
    assert version is not None  # a foreign key keeps it there
    return version


def posted_indexes(session: Session, study: Study | None) -> set[int]:
    """The indexes of the study's HITs the store knows to be posted (none for no study yet)."""
    if study is None or study.id is None:
        return set()
    return set(
        session.exec(
            select(Hit.index).where(Hit.study_id == study.id, col(Hit.platform_hit_id).is_not(None))
        ).all()
    )


def open_assignments(session: Session, study: Study) -> int:
    """How many assignments the study's posted HITs still ask for: their raters minus the
    assignments stored for them (what a crowd can still do)."""
    if study.id is None:
        return 0
    posted = (col(Hit.study_id) == study.id, col(Hit.platform_hit_id).is_not(None))
    asked = session.execute(sa.select(sa.func.sum(col(Hit.max_assignments))).where(*posted))
    stored = session.execute(
        sa.select(sa.func.count(col(Assignment.id)))
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == study.id)
    )
    return max(0, int(asked.scalar() or 0) - int(stored.scalar() or 0))


@dataclass(frozen=True)
class StoredStudy:
    """A study's row, its instrument version's row (both as dicts) and its judgments: what the
    later stages (characterize, report) read of a stored study, with no database attached."""

    study: dict[str, Any]
    instrument: dict[str, Any]
    judgments: pd.DataFrame


def load_study(session: Session, study: Study) -> StoredStudy:
    """``study`` as plain rows with its judgments; `InputError` when it has none yet."""
    from harness.store.judgment_table import study_judgments

    assert study.id is not None
    judgments = study_judgments(session, study.id)
    if judgments.empty:
        raise InputError(f"stored study {study.name!r} has no judgments yet")
    first, last = session.execute(
        sa.select(
            sa.func.min(col(Assignment.accepted_at)), sa.func.max(col(Assignment.submitted_at))
        )
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == study.id)
    ).one()
    ran = {"first_accepted": _iso(first), "last_submitted": _iso(last)}
    return StoredStudy(
        study=study.model_dump(mode="json") | ran,
        instrument=instrument_of(session, study).model_dump(mode="json"),
        judgments=judgments,
    )


def _iso(when: Any) -> str | None:
    """A stored time as ISO 8601 in UTC (SQLite gives it back naive, or as text)."""
    if when is None:
        return None
    if isinstance(when, str):
        return when
    return aware(when).isoformat()
