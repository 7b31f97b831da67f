"""The store's tables of a study with arms (issue #18, docs/arms.md).

`StudyArm`: one row per arm of a study, naming the arm's frozen instrument. `ArmHit`: which arm
a HIT belongs to (each arm has its own HITs, so every item reaches its raters in every arm).
`WorkerArm`: the arm a worker was assigned to on first arrival. "Exactly once" is the
database's: a worker has at most one arm per study (unique study, worker), and each arrival
number of a study is given once (unique study, arrival), so two processes assigning at the
same moment cannot both count the same arrival (`harness.store.arm_assignment`).
`hit_arm` is the one lookup the submission path needs: a HIT's arm and the instrument its
judgments are stored under (kept per process once posted: `harness.store.posted`).

On a platform whose units are published one by one (MTurk), each arm also has its own work type
(`StudyArm.work_type_id`: its HIT group, whose reward and title may differ) and its own group of
workers (`StudyArm.group_ref`: a qualification type every worker of the arm is given, which the
other arms' HITs require not to exist); `WorkerArm.joined_at` says when the platform was told a
worker's arm (None: not yet; `harness sync` tells it). See docs/arms.md, "Arms on MTurk".
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, col, select

from harness.clock import utcnow
from harness.store.models import Hit, Study


class StudyArm(SQLModel, table=True):
    """One arm of a study: its name, its place in the spec's order and its instrument."""

    __tablename__ = "study_arm"
    __table_args__ = (
        sa.UniqueConstraint("study_id", "name"),
        sa.UniqueConstraint("study_id", "position"),
    )
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    name: str = Field(max_length=40)
    position: int
    instrument_id: int = Field(foreign_key="instrument_version.id", index=True)
    work_type_id: str | None = Field(default=None, max_length=200)  # MTurk: its HIT type
    group_ref: str | None = Field(default=None, max_length=200)  # MTurk: its qualification type


class ArmHit(SQLModel, table=True):
    """The arm a HIT of a study with arms belongs to."""

    __tablename__ = "arm_hit"
    hit_id: int = Field(foreign_key="hit.id", primary_key=True)
    arm_id: int = Field(foreign_key="study_arm.id", index=True)


class WorkerArm(SQLModel, table=True):
    """A worker's arm in a study, given on their first arrival (their ``arrival`` number)."""

    __tablename__ = "worker_arm"
    __table_args__ = (
        sa.UniqueConstraint("study_id", "worker_id"),
        sa.UniqueConstraint("study_id", "arrival"),
    )
    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    worker_id: int = Field(foreign_key="worker.id", index=True)
    arm_id: int = Field(foreign_key="study_arm.id", index=True)
    arrival: int
    assigned_at: datetime = Field(
        default_factory=utcnow, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False)
    )
    joined_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )  # when the platform put the worker in the arm's group (None: not yet, or no group)


def hit_arm(session: Session, hit: Hit) -> tuple[int | None, int]:
    """A HIT's arm (None: a study without arms) and the instrument its pages show and its
    judgments are stored under: its arm's, or the study's."""
    found = session.exec(
        select(ArmHit.arm_id, StudyArm.instrument_id)
        .join(StudyArm, col(StudyArm.id) == col(ArmHit.arm_id))
        .where(ArmHit.hit_id == hit.id)
    ).first()
    if found is not None:
        return found[0], found[1]
    study = session.get(Study, hit.study_id)
    assert study is not None
    return None, study.instrument_id


def hit_instruments(session: Session, hits: list[Hit]) -> dict[int, int]:
    """Each HIT's instrument (its arm's, else the study's), in one query per study."""
    ids = [h.id for h in hits if h.id is not None]
    arms = dict(
        session.exec(
            select(ArmHit.hit_id, StudyArm.instrument_id)
            .join(StudyArm, col(StudyArm.id) == col(ArmHit.arm_id))
            .where(col(ArmHit.hit_id).in_(ids))
        ).all()
    )
    studies: dict[int, int] = {}
    out = {}
    for hit in hits:
        assert hit.id is not None
        if hit.id in arms:
            out[hit.id] = arms[hit.id]
            continue
        if hit.study_id not in studies:
            study = session.get(Study, hit.study_id)
            assert study is not None
            studies[hit.study_id] = study.instrument_id
        out[hit.id] = studies[hit.study_id]
    return out
