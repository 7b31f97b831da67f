"""Stored judgments in and out as the long table (`harness.judgments`).

An item's second showing within an assignment is read as a ``repeat`` however it was stored
(`harness.showings.mark_repeats`): stores written before the store gave it that role hold both
showings with the item's role.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col

from harness.page_signals import SIGNAL_COLUMNS, InputKind
from harness.showings import mark_repeats
from harness.store.models import Assignment, Hit, InstrumentVersion, Item, Judgment, Worker
from harness.store.withdrawals import not_withdrawn


def _joined(study_id: int, *columns: Any) -> sa.Select[Any]:
    """``columns`` of the study's judgments joined to their item, worker, assignment and HIT;
    never a participant's who withdrew from the study (`harness.store.withdrawals`)."""
    return (
        sa.select(*columns)
        .join(Item, col(Item.id) == col(Judgment.item_id))
        .join(Worker, col(Worker.id) == col(Judgment.worker_id))
        .join(Assignment, col(Assignment.id) == col(Judgment.assignment_id))
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == study_id, not_withdrawn(study_id))
        .order_by(col(Judgment.id))
    )


def _frame(session: Session, query: sa.Select[Any]) -> pd.DataFrame:
    """The query's rows as a frame of its columns, built from plain tuples: pandas infers each
    column's type as from a dict per row, at less CPU than from dicts or SQLAlchemy's rows as
    they come (live screening reads each new assignment this way)."""
    rows = [tuple(row) for row in session.execute(query)]
    return pd.DataFrame(rows, columns=list(query.selected_columns.keys()))


def study_judgments(session: Session, study_id: int) -> pd.DataFrame:
    """Every judgment of a study as a long table, with timings, roles and display columns."""
    query = _joined(
        study_id,
        col(Item.key).label("item_id"),
        col(Worker.platform_worker_id).label("worker_id"),
        Judgment.value,
        Judgment.skipped,
        col(Assignment.platform_assignment_id).label("assignment_id"),
        col(Hit.platform_hit_id).label("hit_id"),
        Judgment.position,
        Judgment.shown_at,
        Judgment.answered_at,
        Judgment.seconds,
        Judgment.role,
        Item.group,
        col(InstrumentVersion.hash).label("instrument_hash"),
        *(getattr(Judgment, c) for c in SIGNAL_COLUMNS),
        Item.display,
    ).join(InstrumentVersion, col(InstrumentVersion.id) == col(Judgment.instrument_id))
    frame = _typed_signals(mark_repeats(_frame(session, query)))  # repeats: older stores
    if frame.empty:
        return frame.drop(columns=["display"])
    display = pd.json_normalize(frame.pop("display").tolist())
    return pd.concat([frame, display.set_index(frame.index)], axis=1)


def screening_rows(
    session: Session, study_id: int, *, assignments: Sequence[int] | None = None
) -> pd.DataFrame:
    """The long table screening reads, lean: no display columns, plus the store's own ids.

    Columns: ``judgment_pk, item_id, worker_id, value, skipped, assignment_id, position,
    seconds, role, answered_hidden, worker_pk, assignment_pk`` (``*_pk``: the store's row ids).
    ``assignments`` keeps those assignments' judgments (store ids).
    """
    query = _joined(
        study_id,
        col(Judgment.id).label("judgment_pk"),
        col(Item.key).label("item_id"),
        col(Worker.platform_worker_id).label("worker_id"),
        Judgment.value,
        Judgment.skipped,
        col(Assignment.platform_assignment_id).label("assignment_id"),
        Judgment.position,
        Judgment.seconds,
        Judgment.role,
        Judgment.answered_hidden,
        col(Judgment.worker_id).label("worker_pk"),
        col(Judgment.assignment_id).label("assignment_pk"),
    )
    if assignments is not None:
        query = query.where(col(Judgment.assignment_id).in_(list(assignments)))
    return mark_repeats(_frame(session, query))  # stores written before repeats had a role


def _typed_signals(frame: pd.DataFrame) -> pd.DataFrame:
    """The page-signal columns as the long table types them (`harness.judgments`)."""
    for column in ("hides", "blurs", "pastes"):
        frame[column] = frame[column].astype("Int64")
    frame["answered_hidden"] = frame["answered_hidden"].astype("boolean")
    frame["input_kind"] = [None if pd.isna(k) else InputKind(k).value for k in frame["input_kind"]]
    for column in ("visible_seconds", "hidden_seconds"):
        frame[column] = frame[column].astype(float)
    return frame


_ANSWERED = sa.exists().where(col(Judgment.assignment_id) == col(Assignment.id))
"""Whether an assignment has judgments stored."""


def _of_study(study_id: int, column: Any, *conditions: Any) -> sa.Select[Any]:
    """``column`` of the study's assignments that meet ``conditions``."""
    return (
        sa.select(column)
        .select_from(Assignment)
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == study_id, *conditions)
    )


def judged_assignments(session: Session, study_id: int) -> set[int]:
    """The study's assignments that have judgments stored (store ids)."""
    return {int(a) for a in session.scalars(_of_study(study_id, col(Assignment.id), _ANSWERED))}


def unscreened_assignments(session: Session, study_id: int) -> list[int]:
    """The study's assignments with judgments that live screening has not taken into account
    yet (``Assignment.screened_at`` unset; store ids, oldest first)."""
    unscreened = col(Assignment.screened_at).is_(None)
    query = _of_study(study_id, col(Assignment.id), unscreened, _ANSWERED)
    return [int(a) for a in session.scalars(query.order_by(col(Assignment.id)))]


_SCREENED = col(Assignment.screened_at).is_not(None)


def screened_assignments(session: Session, study_id: int) -> set[int]:
    """The study's assignments live screening has taken into account (store ids)."""
    return {int(a) for a in session.scalars(_of_study(study_id, col(Assignment.id), _SCREENED))}


def screened_count(session: Session, study_id: int) -> int:
    """How many of the study's assignments live screening has taken into account: cheaper
    than `screened_assignments` when only a change is to be noticed."""
    return int(session.scalar(_of_study(study_id, sa.func.count(), _SCREENED)) or 0)


def studies_with_unscreened(session: Session) -> list[int]:
    """The studies (store ids, ascending) with an assignment whose judgments are stored and
    that live screening has not taken into account yet."""
    query = (
        sa.select(col(Hit.study_id))
        .join(Assignment, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Assignment.screened_at).is_(None), _ANSWERED)
        .distinct()
        .order_by(col(Hit.study_id))
    )
    return [int(s) for s in session.execute(query).scalars()]


def assignment_answers(session: Session, study_id: int, assignment_pk: int) -> pd.DataFrame:
    """One assignment's judgments in the order shown: ``position, item_id, worker_id, role, value,
    skipped, seconds, shown_at, answered_at, display`` (``display``: the item's columns as
    the worker saw them). What a person reads to judge one submission."""
    query = _joined(
        study_id,
        Judgment.position,
        col(Item.key).label("item_id"),
        col(Worker.platform_worker_id).label("worker_id"),
        Judgment.role,
        Judgment.value,
        Judgment.skipped,
        Judgment.seconds,
        Judgment.shown_at,
        Judgment.answered_at,
        Item.display,
    ).where(col(Judgment.assignment_id) == assignment_pk)
    return mark_repeats(_frame(session, query.order_by(None).order_by(col(Judgment.position))))
