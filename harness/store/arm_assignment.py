"""A worker's arm in a study with arms (issue #18): given on first arrival, kept, recorded.

Assignment is balanced and seeded by permuted blocks: the arrivals of a study are numbered
0, 1, 2, ...; arrival ``n`` falls in block ``n // k`` (``k`` arms), and each block is a
permutation of the arms drawn from the study's seed and the block's number (`arm_for_arrival`,
pure). After every complete block each arm has the same number of workers; in between, they
differ by at most one. A worker whose arm has no work left for them is not moved: the arm is
theirs for the whole study (an arm without open places refuses new arrivals the way a full
study does, and the next arrival gets the next arm in the sequence).

"Exactly once" is the database's (`harness.store.arm_tables.WorkerArm`): one row per (study,
worker) and one per (study, arrival number). Two processes seeing the same arrival number both
insert; one insert fails on the unique arrival, and that process counts again. A worker
arriving twice at once gets one arm: the loser of the (study, worker) insert reads the
winner's row. `allocate_in_arm` does this under the lock of the study's places
(`harness.store.locks.lock_places`, the one arrivals take), before the allocator
(`harness.store.allocation.allocate`) gives the worker a slot of one of their arm's HITs;
`arrive_at_hit` does it when a worker opens a HIT of a study whose HITs a platform lists one by
one (MTurk's external hosting), and says whether the HIT is of the worker's arm.

`record_arm` records an arm chosen elsewhere, with the same constraints: with MTurk hosting,
harness first sees a worker in a submission, and their arm is the one of the HIT group they
took first (docs/arms.md, "Arms on MTurk").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from harness.clock import utcnow
from harness.errors import StoreError
from harness.store.allocation import (
    Allocation,
    Compose,
    Refused,
    allocate,
    paused_for_newcomers,
)
from harness.store.arm_tables import ArmHit, StudyArm, WorkerArm
from harness.store.locks import lock_places
from harness.store.models import InstrumentVersion, Worker
from harness.store.submissions import worker_row

ATTEMPTS = 20
"""How often an assignment counts again after losing an arrival number to another process."""


def arm_for_arrival(seed: int, n_arms: int, arrival: int) -> int:
    """The arm (0-based position) of the study's ``arrival``-th worker: permuted blocks."""
    if n_arms < 1 or arrival < 0:
        raise ValueError(f"need at least one arm and an arrival >= 0 (got {n_arms}, {arrival})")
    block, place = divmod(arrival, n_arms)
    import numpy as np  # only an arrival on a study with arms draws

    order = np.random.default_rng([seed & 0xFFFFFFFF, block]).permutation(n_arms)
    return int(order[place])


@dataclass(frozen=True)
class ArmRef:
    """An arm of a stored study: its row id, name, position and instrument."""

    id: int
    name: str
    position: int
    instrument_id: int
    work_type_id: str | None = None  # its own work type (MTurk: HIT type), if it has one
    group_ref: str | None = None  # the platform's group of its workers (MTurk: qualification)


def _ref(row: StudyArm) -> ArmRef:
    assert row.id is not None
    return ArmRef(
        row.id, row.name, row.position, row.instrument_id, row.work_type_id, row.group_ref
    )


def record_arms(session: Session, study_id: int, arms: Sequence[tuple[str, int]]) -> list[ArmRef]:
    """The study's arms (name, instrument id), in order: created, or found again on a re-run
    (the same names with the same instruments; anything else is refused)."""
    rows = session.exec(select(StudyArm).where(StudyArm.study_id == study_id))
    stored = {a.name: a for a in rows}
    refs = []
    for position, (name, instrument_id) in enumerate(arms):
        row = stored.get(name)
        if row is None:
            row = StudyArm(
                study_id=study_id, name=name, position=position, instrument_id=instrument_id
            )
            session.add(row)
            session.flush()
        elif (row.position, row.instrument_id) != (position, instrument_id):
            raise StoreError(
                f"the study's arm {name!r} was launched with another instrument or order; "
                "give a changed study another study.name"
            )
        refs.append(_ref(row))
    if set(stored) - {name for name, _ in arms}:
        raise StoreError(
            f"the study has arms {', '.join(sorted(stored))}; this spec names other arms: "
            "give a changed study another study.name"
        )
    return refs


def assign_hits(session: Session, arm_id: int, hit_ids: Sequence[int]) -> None:
    """Record that these HITs belong to the arm (idempotent)."""
    have = {
        h for h in session.exec(select(ArmHit.hit_id).where(col(ArmHit.hit_id).in_(list(hit_ids))))
    }
    for hit_id in hit_ids:
        if hit_id not in have:
            session.add(ArmHit(hit_id=hit_id, arm_id=arm_id))
    session.flush()


def study_arms(session: Session, study_id: int) -> list[ArmRef]:
    """The study's arms in the spec's order (none: a study without arms)."""
    rows = session.exec(
        select(StudyArm).where(StudyArm.study_id == study_id).order_by(col(StudyArm.position))
    )
    return [_ref(r) for r in rows]


def set_platform_refs(
    session: Session, arm_id: int, *, work_type_id: str | None = None, group_ref: str | None = None
) -> None:
    """Record the arm's platform references as the platform returns them (the caller commits
    before the next platform call)."""
    row = session.get(StudyArm, arm_id)
    assert row is not None
    if work_type_id is not None:
        row.work_type_id = work_type_id
    if group_ref is not None:
        row.group_ref = group_ref
    session.add(row)
    session.flush()


def hit_arm(session: Session, hit_id: int) -> ArmRef | None:
    """The arm a HIT belongs to (None: a study without arms)."""
    row = session.exec(
        select(StudyArm)
        .join(ArmHit, col(ArmHit.arm_id) == col(StudyArm.id))
        .where(ArmHit.hit_id == hit_id)
    ).first()
    return None if row is None else _ref(row)


def arm_hits(session: Session, arm_id: int) -> set[int]:
    """The ids of the arm's HITs."""
    return set(session.exec(select(ArmHit.hit_id).where(ArmHit.arm_id == arm_id)))


def worker_arm(session: Session, study_id: int, worker_id: int) -> ArmRef | None:
    """The arm the worker was given in this study, if any."""
    row = session.exec(
        select(StudyArm)
        .join(WorkerArm, col(WorkerArm.arm_id) == col(StudyArm.id))
        .where(WorkerArm.study_id == study_id, WorkerArm.worker_id == worker_id)
    ).first()
    return None if row is None else _ref(row)


def assignment_seed(session: Session, arms: Sequence[ArmRef]) -> int:
    """The study's assignment seed: the spec's ``order.seed`` (the first arm's frozen spec)."""
    version = session.get(InstrumentVersion, arms[0].instrument_id)
    order = (version.spec.get("order") or {}) if version is not None else {}
    return int(order.get("seed", 0))


def assign_arm(session: Session, study_id: int, worker_id: int) -> ArmRef:
    """The worker's arm: the one recorded, else the next in the study's sequence, recorded
    now (see the module docstring). The caller commits."""
    arms = study_arms(session, study_id)
    if not arms:
        raise StoreError(f"study {study_id} has no arms")
    seed = assignment_seed(session, arms)
    return _record(
        session, study_id, worker_id, lambda n: arms[arm_for_arrival(seed, len(arms), n)]
    )


def record_arm(session: Session, study_id: int, worker_id: int, arm: ArmRef) -> ArmRef:
    """The worker's arm: the one recorded, else ``arm``, recorded now as the study's next
    arrival (the same constraints as `assign_arm`). The caller commits."""
    return _record(session, study_id, worker_id, lambda _n: arm)


def _record(
    session: Session, study_id: int, worker_id: int, choose: Callable[[int], ArmRef]
) -> ArmRef:
    """The worker's recorded arm, else ``choose(arrival number)`` recorded as that arrival."""
    for _ in range(ATTEMPTS):
        found = worker_arm(session, study_id, worker_id)
        if found is not None:
            return found
        arrival = session.exec(
            select(func.count()).select_from(WorkerArm).where(WorkerArm.study_id == study_id)
        ).one()
        arm = choose(int(arrival))
        row = WorkerArm(study_id=study_id, worker_id=worker_id, arm_id=arm.id, arrival=arrival)
        try:
            with session.begin_nested():
                session.add(row)
            return arm
        except sa.exc.IntegrityError:
            continue  # another process took this arrival number, or assigned this worker
    raise StoreError(
        f"could not record an arm for worker {worker_id} in study {study_id} after "
        f"{ATTEMPTS} tries; try again"
    )


def allocate_in_arm(
    session: Session,
    study_id: int,
    platform_worker_id: str,
    session_ref: str | None,
    *,
    hold: timedelta,
    now: datetime | None = None,
    paused_stops_new: bool = False,
    compose: Compose | None = None,
) -> Allocation | Refused:
    """`allocate`, kept to the worker's arm in a study with arms (assigned on first arrival);
        exactly `allocate` in a study without. With ``paused_stops_new`` (a platform paused at
        entry: a study link), a paused study refuses anyone without work under way, decided under
        the places lock (`paused_for_newcomers`), before an arm is assigned. ``compose`` makes a HIT
    when none is free (adaptive collection, `allocate`; a study without arms)."""
    arms = study_arms(session, study_id)  # made at launch, never changed: read before the lock
    lock_places(session, study_id)  # the first write: arrivals of a study take turns
    if paused_stops_new:
        paused = paused_for_newcomers(session, study_id, platform_worker_id, session_ref)
        if paused is not None:
            return paused
    if not arms:
        return allocate(
            session, study_id, platform_worker_id, session_ref, hold=hold, now=now, compose=compose
        )
    worker: Worker = worker_row(session, platform_worker_id)
    assert worker.id is not None
    arm = assign_arm(session, study_id, worker.id)
    hits = arm_hits(session, arm.id)
    return allocate(
        session,
        study_id,
        platform_worker_id,
        session_ref,
        hold=hold,
        now=now,
        allowed=lambda candidate: candidate.hit_id in hits,
    )


@dataclass(frozen=True)
class HitArrival:
    """A worker at a HIT of a study with arms: their arm, the HIT's, and whether the platform
    was told the worker's arm (`WorkerArm.joined_at`)."""

    worker: ArmRef
    hit: ArmRef
    joined: bool

    @property
    def in_arm(self) -> bool:
        return self.worker.id == self.hit.id


def arrive_at_hit(
    session: Session, study_id: int, hit_id: int, platform_worker_id: str
) -> HitArrival | None:
    """A worker opening one of the study's HITs: their arm (given now on their first arrival,
    under the places lock) and the HIT's; None for a HIT of a study without arms. The
    caller commits (the arm is recorded even when the HIT is of another arm)."""
    arm = hit_arm(session, hit_id)
    if arm is None:
        return None
    lock_places(session, study_id)  # before writing: arrivals of a study take turns
    worker: Worker = worker_row(session, platform_worker_id)
    assert worker.id is not None
    mine = assign_arm(session, study_id, worker.id)
    row = _arm_row(session, study_id, platform_worker_id)
    return HitArrival(mine, arm, row is not None and row.joined_at is not None)


def out_of_arm(session: Session, study_id: int, hit_id: int, platform_worker_id: str) -> bool:
    """Whether the HIT belongs to an arm the worker does not have (another arm's, or the
    worker has no arm yet): their work on it is not the study's (reads only)."""
    arm = hit_arm(session, hit_id)
    if arm is None:
        return False
    mine = _arm_row(session, study_id, platform_worker_id)
    return mine is None or mine.arm_id != arm.id


def _arm_row(session: Session, study_id: int, platform_worker_id: str) -> WorkerArm | None:
    """The worker's arm row in the study, by their platform id (None: no arm yet)."""
    return session.exec(
        select(WorkerArm)
        .join(Worker, col(Worker.id) == col(WorkerArm.worker_id))
        .where(WorkerArm.study_id == study_id, Worker.platform_worker_id == platform_worker_id)
    ).first()


def unjoined(session: Session, study_id: int) -> list[tuple[str, ArmRef]]:
    """The workers (platform ids) the platform has not been told the arm of yet, with their
    arm: every worker of an arm with a group (`StudyArm.group_ref`) not joined yet."""
    rows = session.exec(
        select(Worker.platform_worker_id, StudyArm)
        .join(WorkerArm, col(WorkerArm.worker_id) == col(Worker.id))
        .join(StudyArm, col(StudyArm.id) == col(WorkerArm.arm_id))
        .where(
            WorkerArm.study_id == study_id,
            col(WorkerArm.joined_at).is_(None),
            col(StudyArm.group_ref).is_not(None),
        )
        .order_by(col(WorkerArm.arrival))
    ).all()
    return [(worker, _ref(arm)) for worker, arm in rows]


def mark_joined(
    session: Session, study_id: int, platform_worker_id: str, *, now: datetime | None = None
) -> None:
    """Record that the platform put the worker in their arm's group (idempotent)."""
    row = _arm_row(session, study_id, platform_worker_id)
    if row is not None and row.joined_at is None:
        row.joined_at = now or utcnow()
        session.add(row)
        session.flush()
