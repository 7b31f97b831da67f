"""A checked batch stored as a study, in one transaction: all of it or, on any error, nothing.

The study runs the spec's frozen instrument (the same hash as any other study of that spec)
and is ``finished`` on the target ``archive`` of the platform it ran on (MTurk), with the
reward and raters per HIT of its file: sync, review, pause and expire refuse it (there is no
platform to ask: `harness.platform.registry.connect`), while status, screen, characterize,
compare-arms, export and the dashboard read it like any other. Each MTurk HIT is a HIT of the
study (its id kept), each row an assignment with its worker, status and times; the judgments
are stored exactly once by the database's unique keys (`harness.store.submissions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.archives.mturk_batch import Batch
from harness.errors import InputError
from harness.platform.registry import ARCHIVE_TARGET
from harness.spec import LoadedSpec
from harness.store.events import EventKind, record_event
from harness.store.instruments import create_study
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Hit,
    HitStatus,
    Study,
    StudyPlatform,
    StudyStatus,
)
from harness.store.studies import study_named
from harness.store.submissions import NewSubmission, store_new_submissions

PLATFORM = "mturk"
STATUS = {
    "Submitted": AssignmentStatus.SUBMITTED,
    "Approved": AssignmentStatus.APPROVED,
    "Rejected": AssignmentStatus.REJECTED,
}


@dataclass(frozen=True)
class ImportResult:
    study_id: int
    hits: int
    assignments: int
    judgments: int
    workers: int


def store_batch(
    session: Session, loaded: LoadedSpec, batch: Batch, name: str, sources: list[str]
) -> ImportResult:
    """Store ``batch``'s assignments as the new study ``name`` of ``loaded``'s instrument, in
    the caller's transaction; `InputError` when the name or a HIT is taken already (the caller
    rolls back: nothing of the study stays)."""
    if study_named(session, name) is not None:
        raise InputError(f"a study named {name!r} is in the store already; give --study a new name")
    hit_ids = list(batch.showings)
    taken = session.exec(
        select(Hit.platform_hit_id, Study.name)
        .join(Study, col(Study.id) == col(Hit.study_id))
        .where(col(Hit.platform_hit_id).in_(hit_ids))
    ).first()
    if taken is not None:
        raise InputError(f"HIT {taken[0]} is stored already, in study {taken[1]!r}")
    study = create_study(session, loaded, name=name, target=ARCHIVE_TARGET)
    assert study.id is not None
    study.status = StudyStatus.FINISHED
    session.add(study)
    counts = {h: 0 for h in hit_ids}
    asked: dict[str, str] = {}
    for a in batch.assignments:
        counts[a.hit_id] += 1
        asked.setdefault(a.hit_id, a.row.cells.get("MaxAssignments", "").strip())
    raters = {h: _max_assignments(asked.get(h, ""), counts[h]) for h in hit_ids}
    reward = _reward(batch)
    session.add(
        StudyPlatform(
            study_id=study.id,
            provider=PLATFORM,
            launch_id=batch.hit_type_id[:40],
            hosting=loaded.spec.hosting,
            spec_path=str(loaded.path),
            reward=loaded.spec.hit.reward if reward is None else reward,
            assignments_per_hit=max(raters.values()),
            work_type_id=batch.hit_type_id,
        )
    )
    hits = {}
    for index, hit_id in enumerate(hit_ids):
        hit = Hit(
            study_id=study.id,
            index=index,
            platform_hit_id=hit_id,
            status=HitStatus.DISPOSED,
            max_assignments=raters[hit_id],
            items=batch.showings[hit_id],
        )
        session.add(hit)
        hits[hit_id] = hit
    session.flush()
    made = store_new_submissions(
        session,
        [
            NewSubmission(hits[a.hit_id], a.assignment_id, a.worker_id, a.answers, a.submitted_at)
            for a in batch.assignments
        ],
    )
    table: Any = Assignment.__table__  # type: ignore[attr-defined]
    session.execute(
        sa.update(table)
        .where(table.c.id == sa.bindparam("pk"))
        .values(status=sa.bindparam("new_status"), accepted_at=sa.bindparam("accepted")),
        [
            {"pk": made[a.assignment_id], "new_status": STATUS[a.status], "accepted": a.accepted_at}
            for a in batch.assignments
        ],
    )
    record_event(
        session,
        EventKind.STUDY_IMPORTED,
        study_id=study.id,
        subject=name,
        payload={
            "files": sources,
            "hit_type": batch.hit_type_id,
            "assignments": len(batch.assignments),
            "rows_kept_out": len(batch.bad_rows),
        },
    )
    return ImportResult(
        study.id,
        len(hits),
        len(batch.assignments),
        sum(len(a.answers) for a in batch.assignments),
        len({a.worker_id for a in batch.assignments}),
    )


def _reward(batch: Batch) -> Decimal | None:
    """The reward of the batch's HITs as its first row gives it (``$0.10``), if it does."""
    text = batch.assignments[0].row.cells.get("Reward", "").strip().removeprefix("$")
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    return amount if amount.is_finite() and 0 <= amount < 10**6 else None


def _max_assignments(text: str, stored: int) -> int:
    """The HIT's MaxAssignments as the file gives it, at least its stored assignments."""
    if text.isascii() and text.isdigit() and len(text) < 7:
        return max(int(text), stored)
    return stored
