"""Store one assignment's answers in one transaction, exactly once.

The callers (the task server for pages harness hosts, sync for pages the platform hosts)
validate answers against the instrument first; this module only writes. A second submission
of the same assignment writes nothing and says so, so a worker's retry or a repeated sync
cannot duplicate judgments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from harness.answer import Answer
from harness.clock import utcnow
from harness.errors import StoreError
from harness.page_signals import SIGNAL_COLUMNS, PageSignals
from harness.showings import showing_roles
from harness.store.events import EventKind, log_event
from harness.store.models import Assignment, AssignmentStatus, Hit, Judgment, Study
from harness.store.posted import ItemRef, hit_facts, hit_items
from harness.store.received import accept, worker_row

__all__ = ["StoredSubmission", "accept", "store_submission", "worker_row"]


@dataclass(frozen=True)
class StoredSubmission:
    assignment: Assignment
    created: bool  # False: this assignment's answers were already stored; nothing was written


def store_submission(
    session: Session,
    hit: Hit,
    platform_assignment_id: str,
    platform_worker_id: str,
    answers: Sequence[Answer],
    submitted_at: datetime | None = None,
) -> StoredSubmission:
    """Write the assignment's judgments and mark it submitted; nothing if already stored.

    Raises `StoreError` (nothing written) when an answer names an item that is not in the
    HIT's instrument, or the assignment belongs to another worker or HIT. The judgments go in
    as one insert of many rows; their unique (assignment, item, position) keeps a concurrent
    second submission of the assignment from storing anything (it fails, and is rolled back).
    """
    when = submitted_at or utcnow()
    assignment, created = accept(
        session, hit, platform_assignment_id, platform_worker_id, submitted_at=when
    )  # a new row is stored as submitted at once
    assert assignment.id is not None
    if not created:  # an assignment this call did not create may have its answers already
        already = session.exec(
            select(Judgment.id).where(Judgment.assignment_id == assignment.id).limit(1)
        ).first()
        if already is not None:
            return StoredSubmission(assignment, created=False)
    instrument_id, items = answer_items(session, hit, answers)
    rows = judgment_rows(assignment.id, assignment.worker_id, instrument_id, answers, items)
    if rows:
        session.execute(sa.insert(Judgment.__table__), rows)  # type: ignore[attr-defined]
    if not created:
        table = Assignment.__table__  # type: ignore[attr-defined]
        session.execute(
            sa.update(table)
            .where(table.c.id == assignment.id)
            .values(status=AssignmentStatus.SUBMITTED, submitted_at=when)
        )
        set_committed_value(assignment, "status", AssignmentStatus.SUBMITTED)  # as now stored
        set_committed_value(assignment, "submitted_at", when)
    log_event(
        session,
        EventKind.ASSIGNMENT_SUBMITTED,
        study_id=hit.study_id,
        subject=platform_assignment_id,
        payload=submitted_payload(hit, platform_worker_id, answers),
    )
    return StoredSubmission(assignment, created=True)


def answer_items(
    session: Session, hit: Hit, answers: Sequence[Answer]
) -> tuple[int, Mapping[str, ItemRef]]:
    """The instrument ``hit``'s judgments are stored under (an arm's HIT: its arm's) and its
    items by key (every item the answers name among them); `StoreError` when an answer names
    an item not in it."""
    facts = hit_facts(session, hit)
    keys = {a.item_key for a in answers}
    items = hit_items(session, hit, facts.instrument_id, keys)
    unknown = sorted(keys - items.keys())
    if unknown:
        study = session.get(Study, hit.study_id)
        assert study is not None
        raise StoreError(f"items not in study {study.name!r}: {', '.join(unknown[:5])}")
    return facts.instrument_id, items


def judgment_rows(
    assignment_pk: int,
    worker_pk: int,
    instrument_id: int,
    answers: Sequence[Answer],
    items: Mapping[str, ItemRef],
) -> list[dict[str, Any]]:
    """The judgment rows of one assignment's answers (``items``: its instrument's, by key)."""
    rows = []
    for answer, role in zip(answers, showing_roles(answers, items), strict=True):
        rows.append(
            {
                "assignment_id": assignment_pk,
                "item_id": items[answer.item_key].id,
                "worker_id": worker_pk,
                "instrument_id": instrument_id,
                "position": answer.position,
                "value": answer.value,
                "skipped": answer.skipped,
                "role": role,  # an item's second showing: repeat (harness.showings)
                "shown_at": answer.shown_at,
                "answered_at": answer.answered_at,
                "seconds": answer.seconds,
                **signal_values(answer.signals),
            }
        )
    return rows


def signal_values(signals: PageSignals | None) -> dict[str, Any]:
    """A showing's page signals as judgment columns (all None when the page sent none)."""
    if signals is None:
        return dict.fromkeys(SIGNAL_COLUMNS)
    return {column: getattr(signals, column) for column in SIGNAL_COLUMNS}


def submitted_payload(
    hit: Hit, platform_worker_id: str, answers: Sequence[Answer]
) -> dict[str, Any]:
    """The ``assignment.submitted`` event's payload."""
    return {"worker": platform_worker_id, "hit": hit.index, "judgments": len(answers)}
