"""A study's state from the store: HITs and assignments by status, coverage, and money.

Screening: workers blocked, flags raised (the latest decision of each worker and heuristic)
and where their decisions stand (pending, applied, overruled).

Money: ``committed`` is what the posted HITs and the bonuses paid take from the account
(every assignment slot, filled or not, as the platform charges at posting); ``spent`` is
what approved work and bonuses cost; ``left`` is the budget minus what is committed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from harness.money import money as written
from harness.platform import money
from harness.platform.contract import Platform
from harness.store.arm_assignment import study_arms
from harness.store.arm_tables import ArmHit, WorkerArm, hit_instruments
from harness.store.decisions import latest_decisions
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Event,
    EventKind,
    Hit,
    HitStatus,
    Item,
    Judgment,
    Study,
)
from harness.store.quarantine import quarantine_counts
from harness.store.studies import LaunchedStudy
from harness.store.withdrawals import withdrawn


@dataclass(frozen=True)
class StudyReport:
    name: str
    target: str
    status: str
    hits: dict[str, int]
    assignments: dict[str, int]
    items: int
    raters_per_item: int
    items_at_target: int
    raters_min: int
    raters_median: float
    raters_max: int
    judgments: int
    committed: Decimal
    spent: Decimal
    budget: Decimal | None
    quarantined: dict[str, int] = field(default_factory=dict)  # by state; never counted above
    blocked: int = 0
    flagged: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    arms: list[tuple[str, int, int]] = field(default_factory=list)  # (arm, HITs, workers)
    out_of_arm: int = 0  # submissions outside their worker's arm (counted in no arm)
    currency: str = "USD"  # the study's, of every amount above
    withdrawn: int = 0  # participants who withdrew (their judgments left out of analysis)

    @property
    def left(self) -> Decimal | None:
        return None if self.budget is None else self.budget - self.committed

    def lines(self) -> list[str]:
        def counts(c: dict[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none"

        def money(amount: Decimal) -> str:
            return written(amount, self.currency, 2)

        budget = (
            "no budget"
            if self.budget is None or self.left is None
            else f"budget {money(self.budget)}, left {money(self.left)}"
        )
        return (
            [
                f"study {self.name} on {self.target}: {self._status()}",
                f"  HITs ({sum(self.hits.values())}): {counts(self.hits)}",
                f"  assignments ({sum(self.assignments.values())}): {counts(self.assignments)}",
                f"  judgments: {self.judgments:,}; "
                f"raters per item (target {self.raters_per_item}): "
                f"min {self.raters_min}, median {self.raters_median:g}, max {self.raters_max}; "
                f"{self.items_at_target} of {self.items} items at target",
                f"  money: committed {money(self.committed)}, spent {money(self.spent)} ({budget})",
                f"  screening: {self.blocked} workers blocked; {self.flagged} flags raised "
                f"(decisions {counts(self.decisions)})",
            ]
            + self._arms_line()
            + self._quarantine_line()
            + self._withdrawn_line()
        )

    def _withdrawn_line(self) -> list[str]:
        if not self.withdrawn:
            return []
        return [
            f"  withdrawn: {self.withdrawn} participants (their judgments are left out of "
            "analysis and export)"
        ]

    def _status(self) -> str:
        if self.status == "running" and self.hits and set(self.hits) == {"full"}:
            return f"running, every place taken (`harness expire {self.name}` ends it)"
        return self.status

    def _arms_line(self) -> list[str]:
        """A study with arms: each arm's HITs and workers (raters above are per item and arm)."""
        if not self.arms:
            return []
        arms = ", ".join(
            f"{name} {hits} HITs, {workers} workers assigned" for name, hits, workers in self.arms
        )
        out = f"; {self.out_of_arm} out-of-arm submissions (not counted)" if self.out_of_arm else ""
        return [f"  arms: {arms}{out}"]

    def _quarantine_line(self) -> list[str]:
        """Submissions the platform has not vouched for: kept apart, counted nowhere above."""
        if not any(self.quarantined.values()):
            return []
        q = self.quarantined
        return [
            f"  quarantined submissions (not counted): {q.get('pending', 0)} awaiting the "
            f"platform, {q.get('refused', 0)} refused (someone else's assignment), "
            f"{q.get('verified', 0)} verified since"
        ]


def study_report(session: Session, platform: Platform, running: LaunchedStudy) -> StudyReport:
    """The study's state from the store, its money priced by ``platform``'s fees."""
    study = running.study
    hits = list(session.exec(select(Hit).where(Hit.study_id == study.id)))
    assignments = [  # plain (HIT, status, submitted) rows: no ORM objects to build
        (int(hit), AssignmentStatus(status), submitted)
        for hit, status, submitted in session.execute(
            sa.select(col(Assignment.hit_id), col(Assignment.status), col(Assignment.submitted_at))
            .join(Hit, col(Hit.id) == col(Assignment.hit_id))
            .where(col(Hit.study_id) == study.id)
        )
    ]
    raters = _raters_per_item(session, hits)
    flags = latest_decisions(session, running.id)
    target = running.platform.assignments_per_hit
    return StudyReport(
        name=study.name,
        target=study.target,
        status=study.status.value,
        hits=_hit_states(hits, assignments),
        assignments=dict(Counter(status.value for _, status, _ in assignments)),
        items=len(raters),
        raters_per_item=target,
        items_at_target=sum(n >= target for n in raters),
        raters_min=min(raters, default=0),
        raters_median=float(statistics.median(raters)) if raters else 0.0,
        raters_max=max(raters, default=0),
        judgments=_judgments(session, hits),
        committed=money.committed(session, platform, running),
        spent=money.spent(session, platform, running, hits),
        budget=study.budget,
        quarantined={k.value: v for k, v in quarantine_counts(session, running.id).items()},
        blocked=_blocked(session, study.id),
        flagged=sum(1 for d in flags if d.flag),
        decisions=dict(Counter(d.state.value for d in flags if d.flag)),
        arms=_arms(session, running.id),
        out_of_arm=_count_events(session, running.id, EventKind.ASSIGNMENT_OUT_OF_ARM),
        currency=study.currency,
        withdrawn=len(withdrawn(session, running.id)),
    )


def _hit_states(
    hits: list[Hit], assignments: list[tuple[int, AssignmentStatus, datetime | None]]
) -> dict[str, int]:
    """HITs by status, "full" for an assignable one whose every place holds a submission (a
    study link's HITs stay assignable in the store: no platform changes them); ``assignments``
    as (HIT id, status, submitted at)."""
    taken = Counter(hit for hit, _, submitted in assignments if submitted is not None)
    return dict(
        Counter(
            "full"
            if h.status is HitStatus.ASSIGNABLE and taken[h.id or 0] >= h.max_assignments
            else h.status.value
            for h in hits
        )
    )


def _arms(session: Session, study_id: int) -> list[tuple[str, int, int]]:
    """Each arm of a study with arms: its name, HITs and workers (none without arms)."""
    out = []
    for arm in study_arms(session, study_id):
        hits = session.exec(
            select(func.count()).select_from(ArmHit).where(ArmHit.arm_id == arm.id)
        ).one()
        workers = session.exec(
            select(func.count()).select_from(WorkerArm).where(WorkerArm.arm_id == arm.id)
        ).one()
        out.append((arm.name, int(hits), int(workers)))
    return out


def _count_events(session: Session, study_id: int, kind: EventKind) -> int:
    return int(
        session.exec(
            select(func.count())
            .select_from(Event)
            .where(Event.study_id == study_id, Event.kind == kind)
        ).one()
    )


def _raters_per_item(session: Session, hits: list[Hit]) -> list[int]:
    """Distinct workers with a judgment per item of the study's HITs (0 for none yet); in a
    study with arms, per item and arm (each arm's judgments carry its own instrument)."""
    instruments = hit_instruments(session, hits)
    counts = {(instruments[h.id], k): 0 for h in hits if h.id is not None for k in h.items}
    hit_ids = [h.id for h in hits]
    if not hit_ids:
        return []
    rows = session.exec(
        select(Judgment.instrument_id, Item.key, func.count(func.distinct(Judgment.worker_id)))
        .join(Judgment, Judgment.item_id == Item.id)  # type: ignore[arg-type]
        .join(Assignment, Assignment.id == Judgment.assignment_id)  # type: ignore[arg-type]
        .where(Assignment.hit_id.in_(hit_ids))  # type: ignore[attr-defined]
        .group_by(col(Judgment.instrument_id), col(Item.key))
    ).all()
    for instrument, key, n in rows:
        if (instrument, key) in counts:
            counts[(instrument, key)] = int(n)
    return list(counts.values())


def _judgments(session: Session, hits: list[Hit]) -> int:
    hit_ids = [h.id for h in hits]
    if not hit_ids:
        return 0
    return int(
        session.exec(
            select(func.count())
            .select_from(Judgment)
            .join(Assignment, Assignment.id == Judgment.assignment_id)  # type: ignore[arg-type]
            .where(Assignment.hit_id.in_(hit_ids))  # type: ignore[attr-defined]
        ).one()
    )


def _blocked(session: Session, study_id: int | None) -> int:
    """Workers blocked in the study now (by screening or by a person, and not unblocked)."""
    kinds = session.exec(
        select(Event.subject, Event.kind)
        .where(Event.study_id == study_id)
        .where(col(Event.kind).in_([EventKind.BLOCKED, EventKind.UNBLOCKED]))
        .order_by(col(Event.id))
    ).all()
    latest = {subject: kind for subject, kind in kinds}
    return sum(1 for kind in latest.values() if kind == EventKind.BLOCKED)


def stored_study_status(engine: sa.Engine, running: LaunchedStudy) -> list[str]:
    """``running``'s report (`study_report`), read from the store once a pause or resume made on
    its platform is recorded (`platform_pause`), with what that recorded."""
    from harness.platform.registry import platform_named
    from harness.store import session_scope
    from harness.store.studies import launched

    with session_scope(engine) as session:
        study = session.get(Study, running.id)
        assert study is not None  # launched studies are never deleted
        platform = platform_named(running.platform.provider)
        note = platform_pause(session, launched(session, study))
        running = launched(session, study)  # as the platform's pause left it
        lines = study_report(session, platform, running).lines()
    return [*lines, f"  {note}"] if note else lines


def platform_pause(session: Session, running: LaunchedStudy) -> str | None:
    """On a platform that pauses studies itself (Prolific), read whether the study is paused
    there and record a pause or resume made there (`harness.platform.pause`); what was
    recorded, or why the platform could not be read (the rest comes from the store)."""
    from harness.errors import HarnessError
    from harness.platform.contract import pausing
    from harness.platform.registry import platform_named, provider_for

    platform = platform_named(running.platform.provider)
    support = pausing(platform)
    if not support.can or support.at_entry:
        return None  # no pause, or harness's own (a study link): the store has it all
    from harness.platform.pause import read_platform_pause

    try:
        return read_platform_pause(session, provider_for(running), running)
    except HarnessError as exc:
        session.rollback()
        return f"could not read the study's status from {platform.label}: {exc}"
