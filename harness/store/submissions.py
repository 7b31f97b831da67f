"""Store one assignment's answers in one transaction, exactly once.

The callers (the task server for pages harness hosts, sync for pages the platform hosts)
validate answers against the instrument first; this module only writes. A second submission
of the same assignment writes nothing and says so, so a worker's retry or a repeated sync
cannot duplicate judgments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from harness.answer import Answer
from harness.errors import StoreError
from harness.showings import showing_roles
from harness.store.arm_tables import hit_instrument_id
from harness.store.events import EventKind, record_event
from harness.store.models import Assignment, AssignmentStatus, Hit, Item, Judgment, Study, utcnow
from harness.store.received import record_accept, worker_row

__all__ = ["StoredSubmission", "record_accept", "store_submission", "worker_row"]


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
    HIT's instrument, or the assignment belongs to another worker or HIT.
    """
    assignment = record_accept(session, hit, platform_assignment_id, platform_worker_id)
    assert assignment.id is not None
    already = session.exec(
        select(Judgment.id).where(Judgment.assignment_id == assignment.id).limit(1)
    ).first()
    if already is not None:
        return StoredSubmission(assignment, created=False)
    study = session.get(Study, hit.study_id)
    assert study is not None
    instrument_id = hit_instrument_id(session, hit)  # an arm's HIT: the arm's instrument
    keys = {a.item_key for a in answers}
    items = {
        i.key: i
        for i in session.exec(
            select(Item).where(Item.instrument_id == instrument_id, Item.key.in_(keys))  # type: ignore[attr-defined]
        )
    }
    unknown = sorted(keys - items.keys())
    if unknown:
        raise StoreError(f"items not in study {study.name!r}: {', '.join(unknown[:5])}")
    for answer, role in zip(answers, showing_roles(answers, items), strict=True):
        item = items[answer.item_key]
        assert item.id is not None
        session.add(
            Judgment(
                assignment_id=assignment.id,
                item_id=item.id,
                worker_id=assignment.worker_id,
                instrument_id=instrument_id,
                position=answer.position,
                value=answer.value,
                skipped=answer.skipped,
                role=role,  # an item's second showing: repeat (harness.showings)
                shown_at=answer.shown_at,
                answered_at=answer.answered_at,
                seconds=answer.seconds,
            )
        )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = submitted_at or utcnow()
    session.add(assignment)
    record_event(
        session,
        EventKind.ASSIGNMENT_SUBMITTED,
        study_id=study.id,
        subject=platform_assignment_id,
        payload={"worker": platform_worker_id, "hit": hit.index, "judgments": len(answers)},
    )
    session.flush()
    return StoredSubmission(assignment, created=True)
