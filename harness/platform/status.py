"""A study's state from the store: HITs and assignments by status, coverage, and money.

Screening: workers blocked, flags raised (the latest decision of each worker and heuristic)
and where their decisions stand (pending, applied, overruled).

Money: ``committed`` is what the posted HITs and the bonuses paid take from the account
(every assignment slot, filled or not, as the platform charges at posting); ``spent`` is
what approved work and bonuses cost; ``left`` is the budget minus what is committed.

Read with SQLAlchemy Core (`harness.store.core`), so `harness status` starts without the ORM
models; a platform that pauses studies itself (Prolific) is asked through the ORM, on its path
only.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from harness.errors import HarnessError, InputError, StudyNotFound
from harness.money import money as written
from harness.platform import money
from harness.platform.contract import pausing
from harness.platform.registry import platform_named, provider_for
from harness.spec.heuristics import decision_key
from harness.store import core
from harness.store.core import rows
from harness.store.states import (
    DecisionState,
    EventKind,
    HitStatus,
    QuarantineState,
    StudyStatus,
)

if TYPE_CHECKING:
    from harness.platform.contract import Platform
    from harness.store.core import Reader
    from harness.store.studies import LaunchedStudy


@dataclass(frozen=True)
class ReportedStudy:
    """What a report reads of a launched study: its row's fields and its platform row's."""

    id: int
    name: str
    target: str
    status: StudyStatus
    budget: Decimal | None
    currency: str
    instrument_id: int
    provider: str
    reward: Decimal
    assignments_per_hit: int

    @classmethod
    def of(cls, running: LaunchedStudy) -> ReportedStudy:
        """The fields of rows already read."""
        study, where = running.study, running.platform
        return cls(
            running.id,
            study.name,
            study.target,
            study.status,
            study.budget,
            study.currency,
            study.instrument_id,
            where.provider,
            where.reward,
            where.assignments_per_hit,
        )


def reported_study(db: Reader, name: str) -> ReportedStudy:
    """The launched study called ``name``; `StudyNotFound` or `InputError` (never launched)
    with the messages of `harness.store.studies.launched_study`."""
    s, p = core.study, core.study_platform
    found = rows(
        db,
        sa.select(s, p.c.provider, p.c.reward, p.c.assignments_per_hit)
        .outerjoin(p, p.c.study_id == s.c.id)
        .where(s.c.name == name),
    )
    if not found:
        raise StudyNotFound(core.unknown_study_message(db, name))
    if found[0].provider is None:
        raise InputError(core.never_launched_message(name))
    return ReportedStudy(**found[0]._mapping)


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
    withdrawn: int = 0  # participants who withdrew (their judgments left out of analysis)
    currency: str = "USD"  # the study's, of every amount above
    adaptive: bool = False  # raters grow past the target (then a floor) where items are imprecise

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
                f"raters per item ({'floor' if self.adaptive else 'target'} "
                f"{self.raters_per_item}): "
                f"min {self.raters_min}, median {self.raters_median:g}, max {self.raters_max}; "
                f"{self.items_at_target} of {self.items} items at "
                + ("the floor" if self.adaptive else "target"),
                f"  money: committed {money(self.committed)}, spent {money(self.spent)} ({budget})",
                f"  screening: {self.blocked} workers blocked; {self.flagged} flags raised "
                f"(decisions {counts(self.decisions)})",
            ]
            + self._adaptive_line()
            + self._arms_line()
            + self._quarantine_line()
            + self._withdrawn_line()
        )

    def _status(self) -> str:
        if self.status == "running" and self.hits and set(self.hits) == {"full"}:
            return f"running, every place taken (`harness expire {self.name}` ends it)"
        return self.status

    def _adaptive_line(self) -> list[str]:
        if not self.adaptive:
            return []
        if self.status == "finished":
            return [
                "  adaptive: every item reached its target or its cap: finished, nobody new "
                "starts (work under way is still collected)"
            ]
        return [
            "  adaptive: items get raters past the floor until their mean is precise enough; "
            "the dashboard's precision page says how many are"
        ]

    def _arms_line(self) -> list[str]:
        """A study with arms: each arm's HITs and workers (raters above are per item and arm)."""
        if not self.arms:
            return []
        arms = ", ".join(
            f"{name} {hits} HITs, {workers} workers assigned" for name, hits, workers in self.arms
        )
        out = f"; {self.out_of_arm} out-of-arm submissions (not counted)" if self.out_of_arm else ""
        return [f"  arms: {arms}{out}"]

    def _withdrawn_line(self) -> list[str]:
        if not self.withdrawn:
            return []
        return [
            f"  withdrawn: {self.withdrawn} participants (their judgments are left out of "
            "analysis and export)"
        ]

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


def study_report(db: Reader, platform: Platform, study: ReportedStudy) -> StudyReport:
    """The study's state from the store, its money priced by ``platform``'s fees."""
    h, a = core.hit, core.assignment
    hits = rows(
        db, sa.select(h.c.id, h.c.status, h.c.max_assignments).where(h.c.study_id == study.id)
    )
    assignments = rows(
        db,
        sa.select(a.c.hit_id, a.c.status, a.c.submitted_at)
        .join(h, h.c.id == a.c.hit_id)
        .where(h.c.study_id == study.id),
    )
    raters = _raters_per_item(db, study)
    flags = _latest_flags(db, study.id)
    target = study.assignments_per_hit
    return StudyReport(
        name=study.name,
        target=study.target,
        status=study.status.value,
        hits=_hit_states(hits, assignments),
        assignments=dict(Counter(row.status.value for row in assignments)),
        items=len(raters),
        raters_per_item=target,
        items_at_target=sum(n >= target for n in raters),
        raters_min=min(raters, default=0),
        raters_median=float(statistics.median(raters)) if raters else 0.0,
        raters_max=max(raters, default=0),
        judgments=_judgments(db, study.id),
        committed=money.committed(db, platform, study.id, study.reward),
        spent=money.spent(db, platform, study.id, study.reward),
        budget=study.budget,
        quarantined=_quarantined(db, study.id),
        blocked=_blocked(db, study.id),
        flagged=sum(1 for flag, _ in flags if flag),
        decisions=dict(Counter(state.value for flag, state in flags if flag)),
        arms=_arms(db, study.id),
        out_of_arm=_count_events(db, study.id, EventKind.ASSIGNMENT_OUT_OF_ARM),
        withdrawn=_count_events(db, study.id, EventKind.PARTICIPANT_WITHDREW),  # one each
        currency=study.currency,
        adaptive=_adaptive(db, study.instrument_id),
    )


def _adaptive(db: Reader, instrument_id: int) -> bool:
    """Whether the study's frozen spec collects adaptively (has an ``adaptive:`` section)."""
    v = core.instrument_version
    spec = db.execute(sa.select(v.c.spec).where(v.c.id == instrument_id)).scalar()
    return isinstance(spec, dict) and spec.get("adaptive") is not None


def _hit_states(hits: Sequence[Any], assignments: Sequence[Any]) -> dict[str, int]:
    """HITs by status, "full" for an assignable one whose every place holds a submission (a
    study link's HITs stay assignable in the store: no platform changes them)."""
    taken = Counter(row.hit_id for row in assignments if row.submitted_at is not None)
    return dict(
        Counter(
            "full"
            if row.status is HitStatus.ASSIGNABLE and taken[row.id] >= row.max_assignments
            else row.status.value
            for row in hits
        )
    )


def _arms(db: Reader, study_id: int) -> list[tuple[str, int, int]]:
    """Each arm of a study with arms: its name, HITs and workers (none without arms)."""
    arm, arm_hit, worker_arm = core.study_arm, core.arm_hit, core.worker_arm
    hits = sa.select(sa.func.count()).where(arm_hit.c.arm_id == arm.c.id).scalar_subquery()
    workers = sa.select(sa.func.count()).where(worker_arm.c.arm_id == arm.c.id).scalar_subquery()
    found = rows(
        db,
        sa.select(arm.c.name, hits, workers)
        .where(arm.c.study_id == study_id)
        .order_by(arm.c.position),
    )
    return [(name, int(n_hits), int(n_workers)) for name, n_hits, n_workers in found]


def _count_events(db: Reader, study_id: int, kind: EventKind) -> int:
    e = core.event
    found = rows(db, sa.select(sa.func.count()).where(e.c.study_id == study_id, e.c.kind == kind))
    return int(found[0][0])


def _raters_per_item(db: Reader, study: ReportedStudy) -> list[int]:
    """Distinct workers with a judgment per item of the study's HITs (0 for none yet); in a
    study with arms, per item and arm (each arm's judgments carry its own instrument)."""
    h, arm_hit, arm = core.hit, core.arm_hit, core.study_arm
    j, i, a = core.judgment, core.item, core.assignment
    arms = dict(
        rows(
            db,
            sa.select(arm_hit.c.hit_id, arm.c.instrument_id)
            .join(arm, arm.c.id == arm_hit.c.arm_id)
            .where(arm.c.study_id == study.id),
        )
    )
    hits = rows(db, sa.select(h.c.id, h.c["items"]).where(h.c.study_id == study.id))
    counts = {
        (arms.get(hit_id, study.instrument_id), key): 0 for hit_id, keys in hits for key in keys
    }
    found = rows(
        db,
        sa.select(j.c.instrument_id, i.c.key, sa.func.count(sa.func.distinct(j.c.worker_id)))
        .join(i, i.c.id == j.c.item_id)
        .join(a, a.c.id == j.c.assignment_id)
        .join(h, h.c.id == a.c.hit_id)
        .where(h.c.study_id == study.id)
        .group_by(j.c.instrument_id, i.c.key),
    )
    for instrument, key, n in found:
        if (instrument, key) in counts:
            counts[(instrument, key)] = int(n)
    return list(counts.values())


def _judgments(db: Reader, study_id: int) -> int:
    h, j, a = core.hit, core.judgment, core.assignment
    found = rows(
        db,
        sa.select(sa.func.count())
        .select_from(j)
        .join(a, a.c.id == j.c.assignment_id)
        .join(h, h.c.id == a.c.hit_id)
        .where(h.c.study_id == study_id),
    )
    return int(found[0][0])


def _latest_flags(db: Reader, study_id: int) -> list[tuple[bool, DecisionState]]:
    """The flag and state of the latest decision of each `decision_key` of the study."""
    d = core.screening_decision
    found = rows(
        db,
        sa.select(d.c.worker_id, d.c.heuristic, d.c.assignment_id, d.c.flag, d.c.state)
        .where(d.c.study_id == study_id)
        .order_by(d.c.id),
    )
    latest = {
        decision_key(worker, heuristic, assignment): (flag, state)
        for worker, heuristic, assignment, flag, state in found
    }
    return list(latest.values())


def _quarantined(db: Reader, study_id: int) -> dict[str, int]:
    """The study's quarantined submissions by state."""
    q = core.quarantined_submission
    found = rows(db, sa.select(q.c.state).where(q.c.study_id == study_id))
    counts = Counter(state for (state,) in found)
    return {state.value: counts.get(state, 0) for state in QuarantineState}


def _blocked(db: Reader, study_id: int) -> int:
    """Workers blocked in the study now (by screening or by a person, and not unblocked)."""
    e = core.event
    kinds = rows(
        db,
        sa.select(e.c.subject, e.c.kind)
        .where(e.c.study_id == study_id, e.c.kind.in_([EventKind.BLOCKED, EventKind.UNBLOCKED]))
        .order_by(e.c.id),
    )
    latest = {subject: kind for subject, kind in kinds}
    return sum(1 for kind in latest.values() if kind == EventKind.BLOCKED)


def stored_study_status(engine: sa.Engine, name: str) -> list[str]:
    """The report of the launched study called ``name`` (`study_report`), read from the store
    once a pause or resume made on its platform is recorded (`platform_pause`), with what that
    recorded."""
    with engine.connect() as connection:
        study = reported_study(connection, name)
    platform = platform_named(study.provider)
    support = pausing(platform)
    note = None
    if support.can and not support.at_entry:  # the platform pauses studies itself
        note = _platform_pause(engine, name, platform.label)
        with engine.connect() as connection:
            study = reported_study(connection, name)  # as the platform's pause left it
    with engine.connect() as connection:
        lines = study_report(connection, platform, study).lines()
    return [*lines, f"  {note}"] if note else lines


def _platform_pause(engine: sa.Engine, name: str, label: str) -> str | None:
    """Read whether the study is paused on its platform and record a pause or resume made there
    (`harness.platform.pause`); what was recorded, or why the platform could not be read (the
    rest comes from the store)."""
    # the ORM, which `harness status` reads without: only for a platform that pauses studies
    from harness.platform.pause import read_platform_pause
    from harness.store import session_scope
    from harness.store.studies import launched_study

    with session_scope(engine) as session:
        running = launched_study(session, name)
        try:
            return read_platform_pause(session, provider_for(running), running)
        except HarnessError as exc:
            session.rollback()
            return f"could not read the study's status from {label}: {exc}"
