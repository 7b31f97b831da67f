"""What a study has committed and spent, from the store, priced by its provider's fees.

Committed: every assignment slot of the posted HITs (the platform takes it when a HIT is
posted or extended) plus the bonuses paid. Spent: approved assignments plus bonuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from sqlmodel import Session, select

from harness.platform.provider import Provider
from harness.store.models import Assignment, AssignmentStatus, Event, Hit, Study

ZERO = Decimal("0")


def hit_total(provider: Provider, reward: Decimal, assignments: int) -> Decimal:
    """Rewards and fees of one HIT of ``assignments`` assignments."""
    return provider.estimate(reward, 1, assignments).total


def bonuses_paid(session: Session, study_id: int) -> Decimal:
    """Bonuses with their fees, as review logged them."""
    events = session.exec(
        select(Event).where(Event.study_id == study_id, Event.kind == "review.bonus")
    )
    return sum((Decimal(str(e.payload.get("cost", "0"))) for e in events), ZERO)


def committed(session: Session, provider: Provider, study: Study, reward: Decimal) -> Decimal:
    """What the study's posted HITs and paid bonuses take from the account."""
    assert study.id is not None
    hits = session.exec(select(Hit).where(Hit.study_id == study.id)).all()
    posted = (h.max_assignments for h in hits if h.platform_hit_id is not None)
    return _sum(hit_total(provider, reward, n) for n in posted) + bonuses_paid(session, study.id)


def spent(
    session: Session, provider: Provider, study: Study, reward: Decimal, hits: Iterable[Hit]
) -> Decimal:
    """What approved work and paid bonuses cost."""
    assert study.id is not None
    size = {h.id: h.max_assignments for h in hits}
    approved = session.exec(
        select(Assignment.hit_id).where(
            Assignment.hit_id.in_(list(size)),  # type: ignore[attr-defined]
            Assignment.status == AssignmentStatus.APPROVED,
        )
    ).all()
    each = _sum(hit_total(provider, reward, size[h]) / size[h] for h in approved)
    return each + bonuses_paid(session, study.id)


def _sum(values: Iterable[Decimal]) -> Decimal:
    return sum(values, ZERO)
