"""Store submissions' answers exactly once: one (a task page's post, sync) or many at once (the
rechecks settling quarantined submissions), by one path.

The callers validate answers against the instrument first; this module only writes, in the
caller's transaction. A batch takes a fixed handful of statements: the workers (read, and the
missing ones inserted), the assignments (one insert), the judgments (one insert of every row),
the events (one insert). The assignment insert skips a row that exists (``ON CONFLICT DO
NOTHING``): one stored without answers (accepted: sync recorded it from the platform) is marked
submitted and takes them; one with answers already is `AlreadyStored` (a worker's retry, a
repeated sync, a concurrent request: a single submission is then reported as not created).
Exactly once stays the database's: the unique assignment id and the judgments' unique
(assignment, item, position).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from harness.answer import Answer
from harness.clock import utcnow
from harness.consent import Consent
from harness.errors import StoreError
from harness.page_signals import SIGNAL_COLUMNS, PageSignals
from harness.showings import showing_roles
from harness.store.events import EventKind, log_events
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Hit,
    Item,
    Judgment,
    Study,
    Worker,
    aware,
)
from harness.store.posted import ItemRef, hit_facts, hit_items
from harness.store.received import accept, skipping_insert, worker_row

__all__ = [
    "AlreadyStored",
    "NewSubmission",
    "StoredSubmission",
    "accept",
    "store_new_submissions",
    "store_submission",
    "worker_row",
]


DIALECTS = ("postgresql", "sqlite")
"""The databases whose ``INSERT ... ON CONFLICT DO NOTHING`` this module uses."""


class AlreadyStored(StoreError):
    """The store holds answers for this assignment already: nothing more is written."""

    def __init__(self, assignment_id: str, assignment_pk: int) -> None:
        super().__init__(f"assignment {assignment_id} was stored meanwhile")
        self.assignment_pk = assignment_pk


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
    accepted_at: datetime | None = None,
    consent: Consent | None = None,
) -> StoredSubmission:
    """Write one assignment's judgments and mark it submitted (a batch of one); nothing if
    its answers are stored already.

    Raises `StoreError` (the caller rolls back) when an answer names an item that is not in
    the HIT's instrument, or the assignment belongs to another worker or HIT.
    """
    new = NewSubmission(
        hit,
        platform_assignment_id,
        platform_worker_id,
        answers,
        submitted_at or utcnow(),
        accepted_at,
        consent,
    )
    try:
        made = store_new_submissions(session, [new])[platform_assignment_id]
        created = True
    except AlreadyStored as stored:
        made, created = stored.assignment_pk, False
    assignment = session.get(Assignment, made, populate_existing=True)
    assert assignment is not None
    return StoredSubmission(assignment, created)


@dataclass(frozen=True)
class NewSubmission:
    """One assignment's answers, as the platform or the page gave them."""

    hit: Hit
    assignment_id: str
    worker_id: str
    answers: Sequence[Answer]
    submitted_at: datetime
    accepted_at: datetime | None = None  # the platform's; None: not known, the submission's
    consent: Consent | None = None  # the consent given before the first item, when asked

    @property
    def accepted(self) -> datetime:
        """When the assignment was accepted, never after it was submitted (a platform's clock a
        moment ahead of harness's must not put the acceptance after the submission)."""
        if self.accepted_at is None:
            return aware(self.submitted_at)
        return min(aware(self.accepted_at), aware(self.submitted_at))


def store_new_submissions(session: Session, batch: Sequence[NewSubmission]) -> dict[str, int]:
    """Store every submission of ``batch``; their assignments' store ids by platform
    assignment id.

    Raises `StoreError` (the caller must roll back: some rows may be written) when an answer
    names an item not in its HIT's instrument, an assignment appears twice in the batch, or
    the store holds one of the assignments as another worker's or HIT's; `AlreadyStored` when
    it has answers for one already.
    """
    if not batch:
        return {}
    dialect = session.get_bind().dialect.name
    if dialect not in DIALECTS:
        raise StoreError(f"storing many submissions at once needs one of {DIALECTS}")
    ids = [s.assignment_id for s in batch]
    if len(set(ids)) != len(ids):
        raise StoreError("an assignment appears twice in one batch of submissions")
    # the instrument and items of each (`StoreError` naming the study for an unknown item)
    items = {s.assignment_id: answer_items(session, s.hit, s.answers) for s in batch}
    workers = _worker_ids(session, dialect, {s.worker_id for s in batch})
    made = _insert_assignments(
        session,
        dialect,
        [
            {
                "hit_id": s.hit.id,
                "worker_id": workers[s.worker_id],
                "platform_assignment_id": s.assignment_id,
                "status": AssignmentStatus.SUBMITTED,
                "accepted_at": s.accepted,
                "submitted_at": s.submitted_at,
                **_consent_columns(s.consent),
            }
            for s in batch
        ],
    )
    if len(made) != len(batch):
        made.update(_accepted(session, [s for s in batch if s.assignment_id not in made], workers))
    judged = judged_before(
        session,
        {s.hit.study_id for s in batch},
        set(workers),
        {a.item_key for s in batch for a in s.answers},
    )
    rows = []
    for s in batch:
        instrument_id, found = items[s.assignment_id]
        before = judged.setdefault((s.hit.study_id, workers[s.worker_id]), set())
        rows += judgment_rows(
            made[s.assignment_id], workers[s.worker_id], instrument_id, s.answers, found, before
        )
        before.update(a.item_key for a in s.answers)  # a later one of the batch: judged before
    if rows:
        session.execute(sa.insert(_table(Judgment)), rows)
    log_events(
        session,
        EventKind.ASSIGNMENT_SUBMITTED,
        [
            (s.hit.study_id, s.assignment_id, submitted_payload(s.hit, s.worker_id, s.answers))
            for s in batch
        ],
    )
    return made


def judged_before(
    session: Session, studies: Collection[int], workers: Collection[str], keys: Collection[str]
) -> dict[tuple[int, int], set[str]]:
    """Which of ``keys`` each of ``workers`` (platform worker ids) has stored judgments of in
    ``studies``, by (study, worker) store ids: one statement."""
    query = (
        sa.select(col(Hit.study_id), col(Judgment.worker_id), col(Item.key))
        .select_from(Judgment)
        .join(Item, col(Item.id) == col(Judgment.item_id))
        .join(Worker, col(Worker.id) == col(Judgment.worker_id))
        .join(Assignment, col(Assignment.id) == col(Judgment.assignment_id))
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(
            col(Hit.study_id).in_(list(studies)),
            col(Worker.platform_worker_id).in_(list(workers)),
            col(Item.key).in_(list(keys)),
        )
        .distinct()
    )
    judged: dict[tuple[int, int], set[str]] = {}
    for study, worker, key in session.execute(query):
        judged.setdefault((study, worker), set()).add(key)
    return judged


def _consent_columns(consent: Consent | None) -> dict[str, Any]:
    if consent is None:
        return {"consent_hash": None, "consented_at": None}
    return {"consent_hash": consent.text_hash, "consented_at": consent.given_at}


def _table(model: Any) -> sa.Table:
    return model.__table__  # type: ignore[no-any-return]


def _worker_ids(session: Session, dialect: str, platform_ids: set[str]) -> dict[str, int]:
    """The workers' store ids by platform id, the missing ones inserted first (of concurrent
    inserts of one worker the database keeps one)."""
    query = sa.select(col(Worker.platform_worker_id), col(Worker.id)).where(
        col(Worker.platform_worker_id).in_(sorted(platform_ids))
    )
    found = {str(p): int(i) for p, i in session.execute(query)}
    missing = sorted(platform_ids - found.keys())
    if missing:
        now = utcnow()
        session.execute(
            skipping_insert(dialect, _table(Worker)),
            [{"platform_worker_id": p, "first_seen": now} for p in missing],
        )
        found.update({str(p): int(i) for p, i in session.execute(query)})
    return found


def _accepted(
    session: Session, batch: Sequence[NewSubmission], workers: Mapping[str, int]
) -> dict[str, int]:
    """The store ids of ``batch``'s assignments stored already without answers (accepted: sync
    recorded them from the platform), each marked submitted now; `StoreError` when one is
    another worker's or HIT's, `AlreadyStored` when one has answers already."""
    table = _table(Assignment)
    found = {
        str(r.platform_assignment_id): r
        for r in session.execute(
            sa.select(
                table.c.platform_assignment_id,
                table.c.id,
                table.c.hit_id,
                table.c.worker_id,
                sa.exists().where(_table(Judgment).c.assignment_id == table.c.id).label("answered"),
            ).where(table.c.platform_assignment_id.in_([s.assignment_id for s in batch]))
        )
    }
    out = {}
    for s in batch:
        row = found.get(s.assignment_id)
        if row is None:  # skipped by the insert, yet gone: a concurrent delete
            raise StoreError(f"assignment {s.assignment_id} was stored meanwhile")
        if row.hit_id != s.hit.id or row.worker_id != workers[s.worker_id]:
            raise StoreError(f"assignment {s.assignment_id} belongs to another worker or HIT")
        if row.answered:
            raise AlreadyStored(s.assignment_id, int(row.id))
        session.execute(
            sa.update(table)
            .where(table.c.id == row.id)
            .values(
                status=AssignmentStatus.SUBMITTED,
                submitted_at=s.submitted_at,
                **_consent_columns(s.consent),
            )
        )
        out[s.assignment_id] = int(row.id)
    return out


def _insert_assignments(
    session: Session, dialect: str, rows: list[dict[str, Any]]
) -> dict[str, int]:
    """Insert the assignments that are not stored yet; the store ids of those inserted."""
    table = _table(Assignment)
    statement = skipping_insert(dialect, table).returning(
        table.c.platform_assignment_id, table.c.id
    )
    return {str(p): int(i) for p, i in session.execute(statement, rows)}


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
    before: AbstractSet[str] = frozenset(),
) -> list[dict[str, Any]]:
    """The judgment rows of one assignment's answers (``items``: its instrument's, by key;
    ``before``: the items the worker judged in another assignment of the study)."""
    rows = []
    for answer, role in zip(answers, showing_roles(answers, items, before), strict=True):
        rows.append(
            {
                "assignment_id": assignment_pk,
                "item_id": items[answer.item_key].id,
                "worker_id": worker_pk,
                "instrument_id": instrument_id,
                "position": answer.position,
                "value": answer.value,
                "skipped": answer.skipped,
                "role": role,  # an item's second showing, or judged before: repeat
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
