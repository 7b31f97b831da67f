"""What a study has committed and spent, from the store, priced by its platform's fees.

Committed: every assignment slot of the posted HITs (the platform takes it when a HIT is
posted or extended) plus the bonuses paid or being paid. Spent: approved assignments plus
bonuses. A HIT pays its study's reward, or in a study with arms its arm's (arms on MTurk may
pay differently).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from sqlmodel import Session, col, select

from harness.platform.contract import Platform
from harness.store.arm_tables import ArmHit, StudyArm
from harness.store.events import EventKind
from harness.store.models import Assignment, AssignmentStatus, Event, Hit, InstrumentVersion
from harness.store.studies import LaunchedStudy

ZERO = Decimal("0")


def hit_total(platform: Platform, reward: Decimal, assignments: int) -> Decimal:
    """Rewards and fees of one HIT of ``assignments`` assignments."""
    return platform.estimate(reward, 1, assignments).total


def bonuses_paid(session: Session, study_id: int) -> Decimal:
    """Bonuses with their fees, as review logged them."""
    events = session.exec(
        select(Event).where(Event.study_id == study_id, Event.kind == EventKind.BONUS_PAID)
    )
    return sum((Decimal(str(e.payload.get("cost", "0"))) for e in events), ZERO)


_BONUS_STEPS = (
    EventKind.BONUS_INTENT,
    EventKind.BONUS_PAY_INTENT,
    EventKind.BONUS_PAID,
    EventKind.ACTION_FAILED,
)


def bonuses_committed(session: Session, study_id: int, excluding: str | None = None) -> Decimal:
    """Bonuses with their fees that are paid or may be: paid, being paid (an intent with no
    result, its attempt not failed), or sent to pay and not known paid; each bonus (its token)
    once, and not the one ``excluding`` names. What a new bonus's budget check adds to."""
    events = session.exec(
        select(Event)
        .where(Event.study_id == study_id, col(Event.kind).in_(_BONUS_STEPS))
        .order_by(col(Event.id))
    ).all()
    failed = {
        e.payload.get("intent")
        for e in events
        if e.kind is EventKind.ACTION_FAILED
        and e.payload.get("action") == EventKind.BONUS_INTENT.value
    }
    cost: dict[str, Decimal] = {}
    paid: dict[str, Decimal] = {}
    for e in events:
        if e.subject == excluding or e.kind is EventKind.ACTION_FAILED:
            continue
        token = e.subject or ""
        value = Decimal(str(e.payload.get("cost", e.payload.get("amount", "0"))))
        if e.kind is EventKind.BONUS_PAID:
            paid[token] = value
        elif e.kind is EventKind.BONUS_PAY_INTENT or e.id not in failed:
            cost.setdefault(token, value)
    return _sum({**cost, **paid}.values())


def hit_rewards(session: Session, study: LaunchedStudy) -> dict[int, Decimal]:
    """The reward of each HIT of a study with arms whose arm pays its own (the others pay the
    study's, `LaunchedStudy.platform.reward`)."""
    rows = session.exec(
        select(ArmHit.hit_id, InstrumentVersion.spec)
        .join(StudyArm, col(StudyArm.id) == col(ArmHit.arm_id))
        .join(InstrumentVersion, col(InstrumentVersion.id) == col(StudyArm.instrument_id))
        .where(StudyArm.study_id == study.id)
    ).all()
    return {hit_id: Decimal(str(spec["hit"]["reward"])) for hit_id, spec in rows}


def hit_reward(session: Session, study: LaunchedStudy, hit_id: int | None) -> Decimal:
    """What one assignment of the HIT pays."""
    found = hit_rewards(session, study).get(hit_id or 0)
    return study.platform.reward if found is None else found


def _posted(session: Session, study: LaunchedStudy) -> list[tuple[Decimal, int]]:
    """(reward, assignments) of every posted HIT of the study."""
    rewards = hit_rewards(session, study)
    hits = session.exec(
        select(Hit.id, Hit.max_assignments).where(
            Hit.study_id == study.id, col(Hit.platform_hit_id).is_not(None)
        )
    ).all()
    return [(rewards.get(h or 0, study.platform.reward), n) for h, n in hits]


def committed(
    session: Session, platform: Platform, study: LaunchedStudy, excluding: str | None = None
) -> Decimal:
    """What the study's posted HITs and its bonuses (paid, or being paid; but the bonus
    ``excluding`` names) take from the account."""
    return _sum(hit_total(platform, r, n) for r, n in _posted(session, study)) + (
        bonuses_committed(session, study.id, excluding)
    )


def fees(session: Session, platform: Platform, study: LaunchedStudy) -> Decimal:
    """The platform's fees within what is committed: of the posted HITs and the paid bonuses."""
    events = session.exec(
        select(Event).where(Event.study_id == study.id, Event.kind == EventKind.BONUS_PAID)
    )
    bonus_fees = _sum(
        Decimal(str(e.payload.get("cost", "0"))) - Decimal(str(e.payload.get("amount", "0")))
        for e in events
    )
    posted = _posted(session, study)
    return _sum(platform.estimate(r, 1, n).fees for r, n in posted) + bonus_fees


def spent(
    session: Session, platform: Platform, study: LaunchedStudy, hits: Iterable[Hit]
) -> Decimal:
    """What approved work and paid bonuses cost."""
    rewards = hit_rewards(session, study)
    size = {h.id: h.max_assignments for h in hits}
    approved = session.exec(
        select(Assignment.hit_id).where(
            col(Assignment.hit_id).in_(list(size)),
            Assignment.status == AssignmentStatus.APPROVED,
        )
    ).all()
    each = _sum(
        hit_total(platform, rewards.get(h, study.platform.reward), size[h]) / size[h]
        for h in approved
    )
    return each + bonuses_paid(session, study.id)


def _sum(values: Iterable[Decimal]) -> Decimal:
    return sum(values, ZERO)
