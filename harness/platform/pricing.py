"""MTurk's fee schedule, in one place, with `Decimal` money.

From MTurk's pricing page (in force since July 2015): the requester pays a 20% commission on
every reward and bonus, 20% more on HITs with 10 or more assignments, and at least $0.01 per
assignment or bonus. Amounts round to the cent, half up.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
COMMISSION = Decimal("0.20")
LARGE_HIT_SURCHARGE = Decimal("0.20")
LARGE_HIT_ASSIGNMENTS = 10
MINIMUM_FEE = Decimal("0.01")


def to_cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def fee_rate(max_assignments: int) -> Decimal:
    """The commission on a HIT's rewards: 20%, or 40% for 10 or more assignments."""
    if max_assignments >= LARGE_HIT_ASSIGNMENTS:
        return COMMISSION + LARGE_HIT_SURCHARGE
    return COMMISSION


def assignment_fee(reward: Decimal, max_assignments: int) -> Decimal:
    """MTurk's fee for one assignment of a HIT with ``max_assignments``."""
    return max(to_cents(reward * fee_rate(max_assignments)), MINIMUM_FEE)


def bonus_fee(amount: Decimal) -> Decimal:
    """MTurk's fee on a bonus payment."""
    return max(to_cents(amount * COMMISSION), MINIMUM_FEE)


@dataclass(frozen=True)
class CostEstimate:
    assignments: int
    rewards: Decimal
    fees: Decimal

    @property
    def total(self) -> Decimal:
        return self.rewards + self.fees


def estimate_cost(reward: Decimal, hits: int, assignments_per_hit: int) -> CostEstimate:
    """Rewards plus fees for ``hits`` HITs of ``assignments_per_hit`` assignments each."""
    assignments = hits * assignments_per_hit
    rewards = to_cents(reward) * assignments
    fees = assignment_fee(reward, assignments_per_hit) * assignments
    return CostEstimate(assignments=assignments, rewards=rewards, fees=fees)
