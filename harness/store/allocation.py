"""Work allocation on platforms with places: hand each arriving participant the next slot.

A study on Prolific or behind a study link is one pool of places; harness decides which HIT
each participant does. The store holds one `Slot` per (HIT, rater position); `allocate` gives
an arriving participant a slot that still needs a rater (`harness.store.slot_choice` picks it),
never a HIT sharing an item with their earlier work, never to a blocked participant, and holds
it for them until its reservation expires. "Exactly once" is the database's: a slot is taken by
a conditional update (open, or reserved by someone whose time ran out), its ``session_ref`` is
unique (one platform session, one slot), and allocations of a study take turns under the
lock of its places (`harness.store.locks.lock_places`), so several task-server processes
decide alike. Whatever changes what an arrival decides from (the study's status, a worker's
block, a slot freed by the platform) takes the same lock, so an arrival sees it wholly before
or wholly after; live screening holds the study's other lock, and arrivals do not wait for it.

A replacement (screening's ``replace``) raises a HIT's ``max_assignments``; the missing slots
are made on the next allocation (`ensure_slots`). A returned or timed-out session frees its
slot (`release`), and so does a rejected submission (`reopen`: the platform opens its place
again, so the HIT needs another rater); a reservation that simply expires is taken by the next
arrival, and the late participant's page is refused (`settle`).

Under adaptive collection a study's HITs are not all planned at launch: when an arrival finds
no free slot, the caller's ``compose`` may add a HIT of the items still least certain
(`harness.platform.adaptive`), under the same lock, and the arrival takes its slot.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.i18n import N_
from harness.store.events import EventKind, record_event, worker_blocked
from harness.store.locks import lock_places
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Hit,
    Slot,
    SlotState,
    StudyStatus,
    Worker,
    aware,
)
from harness.store.received import insert_or_read, owned
from harness.store.slot_choice import Candidate, preference
from harness.store.studies import study_status
from harness.store.submissions import worker_row

Compose = Callable[[Session, set[str]], bool]
"""Add a HIT for an arrival who has seen these items, under the places lock; False: none."""


@dataclass(frozen=True)
class Allocation:
    """A slot held by a participant: which HIT, under which session, until when."""

    slot_id: int
    hit_id: int
    hit_index: int
    session_ref: str
    worker: str
    expires_at: datetime
    resumed: bool  # the participant already held it (a reload, a second visit)


class Refusal(StrEnum):
    BLOCKED = "blocked"  # screening (or a person) excluded the participant from the study
    FULL = "full"  # no HIT the participant may take needs a rater now
    DONE = "done"  # this session's work is submitted already
    PAUSED = "paused"  # the study is paused at entry: nobody new starts (work under way goes on)


@dataclass(frozen=True)
class Refused:
    reason: Refusal
    message: str


MESSAGES = {  # in English; the task server shows them translated (harness.i18n)
    Refusal.BLOCKED: N_("You cannot take part in this study any more. Thank you for your time."),
    Refusal.FULL: N_(
        "There is no work left in this study for you right now: every place is taken or you "
        "have done every part you may. Thank you for your interest."
    ),
    Refusal.DONE: N_("Your answers for this session are recorded already. Thank you!"),
    Refusal.PAUSED: N_(
        "This study is paused: nobody new can start it now. Please try the same link again later."
    ),
}


def ensure_slots(session: Session, study_id: int) -> int:
    """Make the slots each HIT of the study is missing (positions up to its
    ``max_assignments``); how many were made. Safe when two processes make the same slot: the
    (HIT, position) pair is unique and the loser's insert is dropped."""
    short = _hits_short_of_slots(session, study_id)
    if not short:
        return 0
    wanted = {
        h.id: h.max_assignments
        for h in session.exec(select(Hit).where(col(Hit.id).in_(short)))
        if h.id is not None
    }
    have: dict[int, set[int]] = {hit: set() for hit in wanted}
    for hit_id, position in session.exec(
        select(Slot.hit_id, Slot.position).where(col(Slot.hit_id).in_(short))
    ):
        have.setdefault(hit_id, set()).add(position)
    made = 0
    for hit_id, n in wanted.items():
        for position in range(n):
            if position in have[hit_id]:
                continue
            try:
                with session.begin_nested():
                    session.add(Slot(study_id=study_id, hit_id=hit_id, position=position))
                made += 1
            except sa.exc.IntegrityError:
                pass  # another process made it
    return made


def _hits_short_of_slots(session: Session, study_id: int) -> list[int]:
    """The study's HITs with fewer slots than ``max_assignments`` (a replacement raised it, or
    none made yet): one aggregate, so an arrival reads no slot row when none is missing."""
    slot, hit = Slot.__table__, Hit.__table__  # type: ignore[attr-defined]
    query = (
        sa.select(hit.c.id)
        .select_from(
            hit.outerjoin(
                slot, sa.and_(slot.c.hit_id == hit.c.id, slot.c.position < hit.c.max_assignments)
            )
        )
        .where(hit.c.study_id == study_id)
        .group_by(hit.c.id, hit.c.max_assignments)
        .having(sa.func.count(slot.c.id) < hit.c.max_assignments)
    )
    return [int(i) for (i,) in session.execute(query)]


def allocate(
    session: Session,
    study_id: int,
    platform_worker_id: str,
    session_ref: str | None,
    *,
    hold: timedelta,
    now: datetime | None = None,
    allowed: Callable[[Candidate], bool] | None = None,
    compose: Compose | None = None,
) -> Allocation | Refused:
    """The slot this participant works on: the one they hold, else the next one that needs a
    rater (reserved for ``hold``), else one of a HIT ``compose`` adds. ``session_ref`` is the
    platform's session id (Prolific's SESSION_ID); None makes one (a study link). Commit the
    caller's transaction to keep it."""
    now = now or utcnow()
    lock_places(session, study_id)  # first statement: allocations of a study take turns
    worker = worker_row(session, platform_worker_id)
    held = _held(session, study_id, worker, session_ref)
    if isinstance(held, Refused):
        return held
    if held is not None:
        if aware(held.expires_at or now) <= now:  # expired, nobody took it: hold it again
            held.expires_at = now + hold
            session.add(held)
        return _allocation(session, held, platform_worker_id, resumed=True)
    if worker_blocked(session, study_id, platform_worker_id):
        return _refuse(session, study_id, platform_worker_id, Refusal.BLOCKED)
    ensure_slots(session, study_id)
    ref = session_ref or f"L{secrets.token_hex(10).upper()}"
    seen = _seen_items(session, study_id, worker)

    def take_first(free: _Free) -> Candidate | None:
        """The first slot of ``free`` this participant may take that they could (`_take`)."""
        for candidate in preference(free.candidates, seen, allowed):
            previous = free.holding.get(candidate.slot_id)
            if _take(session, candidate.slot_id, previous, worker, ref, now, hold):
                return candidate
        return None

    # each HIT's lowest free slot first: the choice is among them; every free slot only if
    # none of those could be taken (allocations take turns under the lock, so hardly ever)
    candidate = take_first(_free_slots(session, study_id, now))
    if candidate is None:
        candidate = take_first(_free_slots(session, study_id, now, every=True))
    if candidate is None and compose is not None and compose(session, seen):
        ensure_slots(session, study_id)
        candidate = take_first(_free_slots(session, study_id, now))
    if candidate is None:
        return _refuse(session, study_id, platform_worker_id, Refusal.FULL)
    assignment = _accepted(session, candidate.hit_id, worker, ref, now)
    session.execute(
        sa.update(Slot)
        .where(col(Slot.id) == candidate.slot_id)
        .values(assignment_id=assignment.id)
        .execution_options(synchronize_session=False)
    )
    record_event(
        session,
        EventKind.SLOT_RESERVED,
        study_id=study_id,
        subject=ref,
        payload={
            "worker": platform_worker_id,
            "hit": candidate.hit_index,
            "slot": candidate.position,
        },
    )
    session.flush()
    return Allocation(
        candidate.slot_id,
        candidate.hit_id,
        candidate.hit_index,
        ref,
        platform_worker_id,
        aware(now + hold),
        resumed=False,
    )


def _accepted(session: Session, hit_id: int, worker: Worker, ref: str, now: datetime) -> Assignment:
    """The session's assignment, made now (`harness.store.received.accept` in one
    statement: the worker's row is at hand); `StoreError` when the session's assignment
    exists for another worker or HIT."""
    values = {
        "hit_id": hit_id,
        "worker_id": worker.id,
        "platform_assignment_id": ref,
        "status": AssignmentStatus.ACCEPTED,
        "accepted_at": now,
    }
    return owned(
        insert_or_read(session, Assignment, values, platform_assignment_id=ref)[0],
        worker.id,
        hit_id,
    )


def holds_slot(
    session: Session, study_id: int, platform_worker_id: str, session_ref: str | None
) -> bool:
    """Whether this session (or, without one, this participant) holds a slot of the study that
    is not submitted yet: work under way, which a paused study still lets them do. Reads only."""
    query = (
        select(Slot.id)
        .join(Worker, col(Worker.id) == col(Slot.worker_id))
        .where(
            Slot.study_id == study_id,
            Worker.platform_worker_id == platform_worker_id,
            Slot.state == SlotState.RESERVED,
        )
    )
    if session_ref is not None:
        query = query.where(Slot.session_ref == session_ref)
    return session.exec(query.limit(1)).first() is not None


def paused_for_newcomers(
    session: Session, study_id: int, platform_worker_id: str, session_ref: str | None
) -> Refused | None:
    """`Refused` (paused) when the study is paused and this participant holds no slot under
    way; None otherwise. Read under the places lock (`lock_places`, which pausing takes too),
    so an arrival waiting for the lock while the study was paused does not start after the
    pause: the status is read from the database, not from a study row read before the lock."""
    status = study_status(session, study_id)
    if status != StudyStatus.PAUSED:
        return None
    if holds_slot(session, study_id, platform_worker_id, session_ref):
        return None
    return Refused(Refusal.PAUSED, MESSAGES[Refusal.PAUSED])


def _held(
    session: Session, study_id: int, worker: Worker, session_ref: str | None
) -> Slot | Refused | None:
    """The slot this session (or, without one, this participant) holds now; `Refused` when
    the session's work is submitted already."""
    if session_ref is not None:
        slot = session.exec(select(Slot).where(Slot.session_ref == session_ref)).first()
        if slot is not None:
            if slot.worker_id != worker.id or slot.study_id != study_id:
                return Refused(Refusal.DONE, N_("This session belongs to someone else."))
            if slot.state is SlotState.SUBMITTED:
                return Refused(Refusal.DONE, MESSAGES[Refusal.DONE])
            return slot
        return None
    return session.exec(
        select(Slot).where(
            Slot.study_id == study_id,
            Slot.worker_id == worker.id,
            Slot.state == SlotState.RESERVED,
        )
    ).first()


def _refuse(session: Session, study_id: int, worker: str, reason: Refusal) -> Refused:
    record_event(
        session,
        EventKind.ALLOCATION_REFUSED,
        study_id=study_id,
        subject=worker,
        payload={"reason": reason.value},
    )
    return Refused(reason, MESSAGES[reason])


@dataclass(frozen=True)
class _Free:
    """The free slots an arrival chooses among, and the assignment each holds now (a
    reservation that expired), which its taker marks abandoned."""

    candidates: list[Candidate]
    holding: dict[int, int | None]


def _free_slots(session: Session, study_id: int, now: datetime, *, every: bool = False) -> _Free:
    """The study's free slots (open, or reserved by someone whose time ran out) below their
    HIT's ``max_assignments``, with their HIT's index, items and how many of its slots are
    taken: each HIT's lowest free slot, or (``every``) all of them. One statement of plain
    rows, a handful per HIT, not every slot of the study as an object: an arrival reads it
    under the places lock, which also keeps what it reads current until it takes a slot."""
    candidates, holding = [], {}
    rows = session.execute(_free_statement(every), {"study_id": study_id, "now": now})
    for i, h, index, position, items, taken, held in rows:
        candidates.append(
            Candidate(int(i), int(h), int(index), int(position), frozenset(items), int(taken))
        )
        holding[int(i)] = None if held is None else int(held)
    return _Free(candidates, holding)


@cache
def _free_statement(every: bool) -> sa.Select[Any]:
    """`_free_slots`' statement, built once per process (its study and time are parameters):
    building it and its cache key again on every arrival was a large part of the allocation's
    CPU, under the lock."""
    slot, hit = Slot.__table__, Hit.__table__  # type: ignore[attr-defined]
    now = sa.bindparam("now", type_=slot.c.expires_at.type)
    live = sa.or_(
        slot.c.state == SlotState.SUBMITTED.name,
        sa.and_(slot.c.state == SlotState.RESERVED.name, slot.c.expires_at > now),
    )
    free = sa.and_(slot.c.position < hit.c.max_assignments, sa.not_(live))
    rows = (
        sa.select(
            slot.c.id,
            slot.c.hit_id,
            slot.c.position,
            slot.c.assignment_id,
            hit.c["index"],
            hit.c["items"],
            sa.func.sum(sa.case((live, 1), else_=0))
            .over(partition_by=slot.c.hit_id)
            .label("taken"),
            sa.case((free, 1), else_=0).label("free"),
            sa.func.row_number()
            .over(
                partition_by=[slot.c.hit_id, sa.case((free, 1), else_=0)], order_by=slot.c.position
            )
            .label("rank"),
        )
        .join(hit, hit.c.id == slot.c.hit_id)
        .where(slot.c.study_id == sa.bindparam("study_id"))
        .subquery()
    )
    query = sa.select(
        rows.c.id,
        rows.c.hit_id,
        rows.c["index"],
        rows.c.position,
        rows.c["items"],
        rows.c.taken,
        rows.c.assignment_id,
    ).where(rows.c.free == 1)
    return query if every else query.where(rows.c.rank == 1)


def _seen_items(session: Session, study_id: int, worker: Worker) -> set[str]:
    """The items of every HIT the participant holds or did in this study (returned and
    abandoned work excepted)."""
    gone = (AssignmentStatus.RETURNED, AssignmentStatus.ABANDONED)
    rows = session.exec(
        select(Hit.items)
        .join(Assignment, col(Assignment.hit_id) == col(Hit.id))
        .where(
            Hit.study_id == study_id,
            Assignment.worker_id == worker.id,
            col(Assignment.status).not_in(gone),
        )
    )
    return {key for items in rows for key in items}


def _take(
    session: Session,
    slot_id: int,
    previous: int | None,
    worker: Worker,
    ref: str,
    now: datetime,
    hold: timedelta,
) -> bool:
    """Reserve the slot if it is still free (a conditional update: exactly one taker wins);
    the earlier holder of an expired reservation (``previous``, read under the places lock)
    is marked abandoned."""
    free = sa.or_(
        col(Slot.state) == SlotState.OPEN,
        sa.and_(col(Slot.state) == SlotState.RESERVED, col(Slot.expires_at) <= now),
    )
    result = session.execute(
        sa.update(Slot)
        .where(col(Slot.id) == slot_id, free)
        .values(
            state=SlotState.RESERVED,
            worker_id=worker.id,
            session_ref=ref,
            assignment_id=None,
            reserved_at=now,
            expires_at=now + hold,
        )
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return False
    if previous is not None:
        _abandon(session, previous, "the reservation expired and the slot went to another")
    return True


def _abandon(session: Session, assignment_pk: int, why: str) -> None:
    assignment = session.get(Assignment, assignment_pk)
    if assignment is None or assignment.status is not AssignmentStatus.ACCEPTED:
        return
    assignment.status = AssignmentStatus.ABANDONED
    session.add(assignment)
    hit = session.get(Hit, assignment.hit_id)
    record_event(
        session,
        EventKind.SLOT_RELEASED,
        study_id=hit.study_id if hit else None,
        subject=assignment.platform_assignment_id,
        payload={"why": why},
    )


def _allocation(session: Session, slot: Slot, worker: str, *, resumed: bool) -> Allocation:
    hit = session.get(Hit, slot.hit_id)
    assert hit is not None and slot.id is not None and slot.session_ref is not None
    assert slot.expires_at is not None
    return Allocation(
        slot.id, slot.hit_id, hit.index, slot.session_ref, worker, aware(slot.expires_at), resumed
    )


def settle(session: Session, session_ref: str) -> bool:
    """Mark the session's slot submitted (in the transaction that stores its answers); False
    when the session holds no slot any more (its reservation expired and went to another)."""
    result = session.execute(
        sa.update(Slot)
        .where(col(Slot.session_ref) == session_ref, col(Slot.state) == SlotState.RESERVED)
        .values(state=SlotState.SUBMITTED)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount == 1:  # type: ignore[attr-defined]
        return True
    slot = session.exec(  # as stored now (a concurrent request may have just submitted it)
        select(Slot)
        .where(Slot.session_ref == session_ref)
        .execution_options(populate_existing=True)
    ).first()
    return slot is not None and slot.state is SlotState.SUBMITTED


def reopen(session: Session, session_ref: str, why: str) -> bool:
    """Open again the submitted slot of a session whose submission was rejected (the platform
    frees its place, and the HIT lacks that rater); once: False when the slot is not a
    submitted one of that session (reopened already). Under the places lock, as `release`."""
    slot = _opened(session, session_ref, SlotState.SUBMITTED)
    if slot is None:
        return False
    record_event(
        session,
        EventKind.SLOT_RELEASED,
        study_id=slot.study_id,
        subject=session_ref,
        payload={"why": why, "status": AssignmentStatus.REJECTED.value},
    )
    return True


def release(session: Session, session_ref: str, status: AssignmentStatus, why: str) -> bool:
    """Free the slot of a session the participant returned or let time out (the platform
    said so); its assignment gets ``status``. False when the session holds no reserved slot.
    Under the places lock (taken here: call it before the transaction writes), so no arrival
    decides from the slot half freed."""
    slot = _opened(session, session_ref, SlotState.RESERVED)
    if slot is None:
        return False
    assignment = session.exec(
        select(Assignment).where(Assignment.platform_assignment_id == session_ref)
    ).first()
    if assignment is not None and assignment.status is AssignmentStatus.ACCEPTED:
        assignment.status = status
        session.add(assignment)
    record_event(
        session,
        EventKind.SLOT_RELEASED,
        study_id=slot.study_id,
        subject=session_ref,
        payload={"why": why, "status": status.value},
    )
    return True


def _opened(session: Session, session_ref: str, held: SlotState) -> Slot | None:
    """The session's slot, made open again if it is ``held`` (under the places lock, taken
    here, and by a conditional update: of two callers one opens it); None when it is not."""
    slot = session.exec(select(Slot).where(Slot.session_ref == session_ref)).first()
    if slot is None or slot.state is not held:
        return None
    lock_places(session, slot.study_id)
    result = session.execute(
        sa.update(Slot)
        .where(
            col(Slot.id) == slot.id,
            col(Slot.state) == held,
            col(Slot.session_ref) == session_ref,
        )
        .values(
            state=SlotState.OPEN,
            session_ref=None,
            worker_id=None,
            assignment_id=None,
            reserved_at=None,
            expires_at=None,
        )
        .execution_options(synchronize_session=False)
    )
    return slot if result.rowcount == 1 else None  # type: ignore[attr-defined]
