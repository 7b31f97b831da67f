"""Stored judgments in and out as the long table (`harness.judgments`)."""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col

from harness.store.models import Assignment, Hit, InstrumentVersion, Item, Judgment, Worker


def study_judgments(session: Session, study_id: int) -> pd.DataFrame:
    """Every judgment of a study as a long table, with timings, roles and display columns."""
    query = (
        sa.select(  # type: ignore[call-overload,misc]
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
            Item.display,
        )
        .join(Item, Item.id == Judgment.item_id)
        .join(Worker, Worker.id == Judgment.worker_id)
        .join(Assignment, Assignment.id == Judgment.assignment_id)
        .join(Hit, Hit.id == Assignment.hit_id)
        .join(InstrumentVersion, InstrumentVersion.id == Judgment.instrument_id)
        .where(Hit.study_id == study_id)
        .order_by(Judgment.id)
    )
    rows = session.execute(query).mappings().all()
    frame = pd.DataFrame([dict(r) for r in rows], columns=list(query.selected_columns.keys()))
    if frame.empty:
        return frame.drop(columns=["display"])
    display = pd.json_normalize(frame.pop("display").tolist())
    return pd.concat([frame, display.set_index(frame.index)], axis=1)
