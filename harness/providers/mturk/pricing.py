"""MTurk's fee schedule, in one place, with `Decimal` money.

Source: Amazon Mechanical Turk pricing (https://requester.mturk.com/pricing): the requester pays
a 20% fee on the reward and on bonuses; HITs with 10 or more assignments pay an additional 20%
(40% in total) on the reward; the minimum fee is $0.01 per assignment or bonus payment.

Chosen here, because the pricing page does not say: fees are rounded to the cent half-up, and a
zero amount carries no fee (the $0.01 minimum applies to non-zero amounts only).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from harness.platform.contract import CostEstimate

CURRENCY = "USD"  # every amount MTurk pays or charges
CENT = Decimal("0.01")
COMMISSION = Decimal("0.20")
LARGE_HIT_EXTRA = Decimal("0.20")
LARGE_HIT_ASSIGNMENTS = 10
MINIMUM_FEE = Decimal("0.01")
SANDBOX_BALANCE = Decimal("10000.00")


def to_cents(amount: Decimal) -> Decimal:
    """Round an amount to the cent, half-up."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def parse_amount(text: str) -> Decimal:
    """Parse a CurrencyAmount string such as "0.50"; raise ValueError when it is not one."""
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError) as exc:
        raise ValueError(f"not a currency amount: {text!r}") from exc
    try:
        exact = value.is_finite() and value >= 0 and value == to_cents(value)
    except InvalidOperation:  # e.g. 1e400: more digits than a quantized amount can have
        exact = False
    if not exact:
        raise ValueError(f"not a currency amount: {text!r}")
    return value


def format_amount(amount: Decimal) -> str:
    """Format an amount the way MTurk does: two decimals, e.g. "10000.00"."""
    return str(to_cents(amount))


def fee_rate(max_assignments: int) -> Decimal:
    """The fee rate on a HIT's reward: 20%, or 40% for 10 or more assignments."""
    if max_assignments >= LARGE_HIT_ASSIGNMENTS:
        return COMMISSION + LARGE_HIT_EXTRA
    return COMMISSION


def _fee(amount: Decimal, rate: Decimal) -> Decimal:
    if amount == 0:
        return Decimal("0.00")
    return max(MINIMUM_FEE, to_cents(amount * rate))


def assignment_fee(reward: Decimal, max_assignments: int) -> Decimal:
    """MTurk's fee on one assignment of a HIT with `max_assignments` assignments."""
    return _fee(reward, fee_rate(max_assignments))


def bonus_fee(bonus: Decimal) -> Decimal:
    """MTurk's fee on one bonus payment (20%, at least $0.01)."""
    return _fee(bonus, COMMISSION)


@dataclass(frozen=True)
class HitCost:
    """What a HIT costs the requester: per assignment and in total."""

    reward: Decimal
    fee: Decimal
    assignments: int

    @property
    def per_assignment(self) -> Decimal:
        return self.reward + self.fee

    @property
    def total(self) -> Decimal:
        return self.per_assignment * self.assignments


def hit_cost(reward: Decimal, max_assignments: int) -> HitCost:
    """The cost of publishing a HIT: reward plus fee, times the number of assignments."""
    return HitCost(reward, assignment_fee(reward, max_assignments), max_assignments)


def bonus_cost(bonus: Decimal) -> Decimal:
    """The cost of a bonus payment: the bonus plus its fee."""
    return bonus + bonus_fee(bonus)


def estimate_cost(reward: Decimal, hits: int, assignments_per_hit: int) -> CostEstimate:
    """Rewards plus fees for ``hits`` HITs of ``assignments_per_hit`` assignments each."""
    cost = hit_cost(to_cents(reward), assignments_per_hit)
    return CostEstimate(
        assignments=hits * assignments_per_hit,
        rewards=cost.reward * hits * assignments_per_hit,
        fees=cost.fee * hits * assignments_per_hit,
    )
