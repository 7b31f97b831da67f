"""Prolific's fees, in one place, with `Decimal` money.

Sources (Prolific's researcher help centre): the service fee is a third of what participants are
paid, on rewards and on bonuses alike ("we charge a ~33.33% service charge on each bonus
payment + VAT where applicable"); VAT at 20% is charged on the fee for researchers in the UK,
an EU researcher whose institution's VAT number is on the workspace is reverse-charged (no VAT
on the invoice), and researchers outside the EU VAT regime pay none. The minimum reward is
£6.00 / $8.00 per hour (recommended: £9.00 / $12.00).

Chosen here, because the pages do not say: the fee is one third rounded to the cent half-up on
each amount (a place's reward, a bonus); VAT is 20% of that fee, rounded likewise; harness
prices in the study's currency (the spec's ``platform.currency``, which must be the
workspace's: GBP or USD) and assumes UK VAT unless told otherwise
(``$HARNESS_PROLIFIC_VAT``: ``uk``, ``eu-reverse-charge`` or ``none``), so that a budget is never
underestimated.
"""

from __future__ import annotations

import os
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from enum import StrEnum

from harness.money import money as written

CENT = Decimal("0.01")
SERVICE_FEE = Decimal(1) / Decimal(3)
VAT_RATE = Decimal("0.20")
MINIMUM_PER_HOUR = {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}
RECOMMENDED_PER_HOUR = {"GBP": Decimal("9.00"), "USD": Decimal("12.00")}
VAT_ENV = "HARNESS_PROLIFIC_VAT"


class VatRegime(StrEnum):
    UK = "uk"
    EU_REVERSE_CHARGE = "eu-reverse-charge"
    NONE = "none"


def vat_regime() -> VatRegime:
    """The VAT regime of the researcher's workspace, from ``$HARNESS_PROLIFIC_VAT`` (UK)."""
    value = os.environ.get(VAT_ENV, VatRegime.UK.value)
    try:
        return VatRegime(value)
    except ValueError as exc:
        known = ", ".join(v.value for v in VatRegime)
        raise ValueError(f"${VAT_ENV}={value!r}: expected one of {known}") from exc


def minimum_per_hour(currency: str) -> Decimal:
    """Prolific's minimum reward per hour in ``currency`` (a workspace's currency code)."""
    try:
        return MINIMUM_PER_HOUR[currency]
    except KeyError:
        known = ", ".join(MINIMUM_PER_HOUR)
        raise ValueError(f"Prolific workspace currency {currency!r}: expected {known}") from None


def money(amount: Decimal, currency: str) -> str:
    """``amount``, to the cent, written in ``currency``: $0.75, £0.75."""
    return written(to_cents(amount), currency)


def to_cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def service_fee(amount: Decimal) -> Decimal:
    """Prolific's fee on one payment to a participant (a place's reward or a bonus)."""
    return to_cents(amount * SERVICE_FEE)


def vat(fee: Decimal, regime: VatRegime) -> Decimal:
    """VAT on a fee: 20% in the UK, none when reverse-charged or outside the EU VAT regime."""
    return to_cents(fee * VAT_RATE) if regime is VatRegime.UK else Decimal("0.00")


def fees_on(amount: Decimal, regime: VatRegime) -> Decimal:
    """Fee and VAT on one payment of ``amount``."""
    fee = service_fee(amount)
    return fee + vat(fee, regime)


def per_hour(reward: Decimal, minutes: int) -> Decimal:
    """The reward per hour of a place that takes ``minutes``."""
    return to_cents(reward * 60 / Decimal(minutes))


def estimated_minutes(max_seconds: int) -> int:
    """The completion time Prolific is told, from the spec's time allowed: a third of it, at
    least a minute (a spec gives the most a participant may take, Prolific wants the typical
    time and allows more itself)."""
    return max(1, int((Decimal(max_seconds) / 180).to_integral_value(rounding=ROUND_CEILING)))


def cents(amount: Decimal) -> int:
    """An amount as Prolific's integer minor units (cents, pence) of the same currency."""
    return int(to_cents(amount) * 100)


def from_cents(value: int | float) -> Decimal:
    return to_cents(Decimal(int(value)) / 100)
