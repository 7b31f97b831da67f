"""What a study has committed and spent, from the store, priced by its platform's fees.

Committed: every assignment slot of the posted HITs (the platform takes it when a HIT is
posted or extended) plus the bonuses paid. Spent: approved assignments plus bonuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from sqlmodel import Session, col, select

from harness.platform.provider import Platform
from harness.store.events import EventKind
from harness.store.models import Assignment, AssignmentStatus, Event, Hit
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


def committed(session: Session, platform: Platform, study: LaunchedStudy) -> Decimal:
    """What the study's posted HITs and paid bonuses take from the account."""
    reward = study.platform.reward
    hits = session.exec(
        select(Hit.max_assignments).where(
            Hit.study_id == study.id, col(Hit.platform_hit_id).is_not(None)
        )
    ).all()
    return _sum(hit_total(platform, reward, n) for n in hits) + bonuses_paid(session, study.id)


def fees(session: Session, platform: Platform, study: LaunchedStudy) -> Decimal:
    """The platform's fees within what is committed: of the posted HITs and the paid bonuses."""
    reward = study.platform.reward
    hits = session.exec(
        select(Hit.max_assignments).where(
            Hit.study_id == study.id, col(Hit.platform_hit_id).is_not(None)
        )
    ).all()
    events = session.exec(
        select(Event).where(Event.study_id == study.id, Event.kind == EventKind.BONUS_PAID)
    )
    bonus_fees = _sum(
        Decimal(str(e.payload.get("cost", "0"))) - Decimal(str(e.payload.get("amount", "0")))
        for e in events
    )
    return _sum(platform.estimate(reward, 1, n).fees for n in hits) + bonus_fees


def spent(
    session: Session, platform: Platform, study: LaunchedStudy, hits: Iterable[Hit]
) -> Decimal:
    """What approved work and paid bonuses cost."""
    reward = study.platform.reward
    size = {h.id: h.max_assignments for h in hits}
    approved = session.exec(
        select(Assignment.hit_id).where(
            col(Assignment.hit_id).in_(list(size)),
            Assignment.status == AssignmentStatus.APPROVED,
        )
    ).all()
    each = _sum(hit_total(platform, reward, size[h]) / size[h] for h in approved)
    return each + bonuses_paid(session, study.id)


def _sum(values: Iterable[Decimal]) -> Decimal:
    return sum(values, ZERO)
