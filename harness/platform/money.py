"""What a study has committed and spent, from the store, priced by its platform's fees.

Committed: every assignment slot of the posted HITs (the platform takes it when a HIT is
posted or extended) plus the bonuses paid or being paid. Spent: approved assignments plus
bonuses. A HIT pays its study's reward, or in a study with arms its arm's (arms on MTurk may
pay differently).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

import sqlalchemy as sa

from harness.store import core
from harness.store.states import AssignmentStatus, EventKind

if TYPE_CHECKING:
    from harness.platform.contract import Platform
    from harness.store.core import Reader

ZERO = Decimal("0")


def hit_total(platform: Platform, reward: Decimal, assignments: int) -> Decimal:
    """Rewards and fees of one HIT of ``assignments`` assignments."""
    return platform.estimate(reward, 1, assignments).total


def _paid_bonuses(db: Reader, study_id: int) -> list[tuple[Decimal, Decimal]]:
    """(amount, cost with the fee) of each bonus paid, as review logged them."""
    e = core.event
    found = core.rows(
        db,
        sa.select(e.c.payload).where(e.c.study_id == study_id, e.c.kind == EventKind.BONUS_PAID),
    )
    return [
        (Decimal(str(p.get("amount", "0"))), Decimal(str(p.get("cost", "0")))) for (p,) in found
    ]


def bonuses_paid(db: Reader, study_id: int) -> Decimal:
    """Bonuses with their fees, as review logged them."""
    return _sum(cost for _amount, cost in _paid_bonuses(db, study_id))


_BONUS_STEPS = (
    EventKind.BONUS_INTENT,
    EventKind.BONUS_PAY_INTENT,
    EventKind.BONUS_PAID,
    EventKind.ACTION_FAILED,
)


def bonuses_committed(db: Reader, study_id: int, excluding: str | None = None) -> Decimal:
    """Bonuses with their fees that are paid or may be: paid, being paid (an intent with no
    result, its attempt not failed), or sent to pay and not known paid; each bonus (its token)
    once, and not the one ``excluding`` names. What a new bonus's budget check adds to."""
    e = core.event
    events = core.rows(
        db,
        sa.select(e.c.id, e.c.kind, e.c.subject, e.c.payload)
        .where(e.c.study_id == study_id, e.c.kind.in_(_BONUS_STEPS))
        .order_by(e.c.id),
    )
    failed = {
        payload.get("intent")
        for _, kind, _, payload in events
        if kind is EventKind.ACTION_FAILED and payload.get("action") == EventKind.BONUS_INTENT.value
    }
    cost: dict[str, Decimal] = {}
    paid: dict[str, Decimal] = {}
    for id_, kind, subject, payload in events:
        if subject == excluding or kind is EventKind.ACTION_FAILED:
            continue
        token = subject or ""
        value = Decimal(str(payload.get("cost", payload.get("amount", "0"))))
        if kind is EventKind.BONUS_PAID:
            paid[token] = value
        elif kind is EventKind.BONUS_PAY_INTENT or id_ not in failed:
            cost.setdefault(token, value)
    return _sum({**cost, **paid}.values())


def hit_rewards(db: Reader, study_id: int) -> dict[int, Decimal]:
    """The reward of each HIT of a study with arms whose arm pays its own (the others pay the
    study's, `StudyPlatform.reward`)."""
    arm_hit, arm, version = core.arm_hit, core.study_arm, core.instrument_version
    found = core.rows(
        db,
        sa.select(arm_hit.c.hit_id, version.c.spec)
        .join(arm, arm.c.id == arm_hit.c.arm_id)
        .join(version, version.c.id == arm.c.instrument_id)
        .where(arm.c.study_id == study_id),
    )
    return {hit_id: Decimal(str(spec["hit"]["reward"])) for hit_id, spec in found}


def hit_reward(db: Reader, study_id: int, reward: Decimal, hit_id: int | None) -> Decimal:
    """What one assignment of the HIT pays (``reward``, the study's, unless its arm pays its
    own)."""
    return hit_rewards(db, study_id).get(hit_id or 0, reward)


def _posted(db: Reader, study_id: int, reward: Decimal) -> list[tuple[Decimal, int]]:
    """(reward, assignments) of every posted HIT of the study."""
    rewards = hit_rewards(db, study_id)
    h = core.hit
    hits = core.rows(
        db,
        sa.select(h.c.id, h.c.max_assignments).where(
            h.c.study_id == study_id, h.c.platform_hit_id.is_not(None)
        ),
    )
    return [(rewards.get(hit_id, reward), n) for hit_id, n in hits]


def committed(
    db: Reader, platform: Platform, study_id: int, reward: Decimal, excluding: str | None = None
) -> Decimal:
    """What the study's posted HITs (paying ``reward`` unless an arm pays its own) and its
    bonuses (paid, or being paid; but the bonus ``excluding`` names) take from the account."""
    return _sum(hit_total(platform, r, n) for r, n in _posted(db, study_id, reward)) + (
        bonuses_committed(db, study_id, excluding)
    )


def fees(db: Reader, platform: Platform, study_id: int, reward: Decimal) -> Decimal:
    """The platform's fees within what is committed: of the posted HITs and the paid bonuses."""
    bonus_fees = _sum(cost - amount for amount, cost in _paid_bonuses(db, study_id))
    posted = _posted(db, study_id, reward)
    return _sum(platform.estimate(r, 1, n).fees for r, n in posted) + bonus_fees


def spent(db: Reader, platform: Platform, study_id: int, reward: Decimal) -> Decimal:
    """What approved work and paid bonuses cost."""
    rewards = hit_rewards(db, study_id)
    h, a = core.hit, core.assignment
    approved = core.rows(
        db,
        sa.select(a.c.hit_id, h.c.max_assignments)
        .join(h, h.c.id == a.c.hit_id)
        .where(h.c.study_id == study_id, a.c.status == AssignmentStatus.APPROVED),
    )
    each = _sum(hit_total(platform, rewards.get(hit, reward), n) / n for hit, n in approved)
    return each + bonuses_paid(db, study_id)


def _sum(values: Iterable[Decimal]) -> Decimal:
    return sum(values, ZERO)
