"""Amounts as a person reads them, in the study's currency (a spec's ``platform.currency``,
stored as ``Study.currency``): $0.75, £1,000.00, 0.75 EUR. Pure; the one place a currency is
written, and read back from what a person types."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

SYMBOLS = {"USD": "$", "GBP": "£"}


def money(amount: Decimal | float, currency: str = "USD", places: int | None = None) -> str:
    """``amount`` written in ``currency`` (its symbol first where harness knows one), to
    ``places`` decimals rounded half-up, or with the amount's own decimals when None."""
    value = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    sign, digits = ("-", f"{-value:,}") if value < 0 else ("", f"{value:,}")  # grouped
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{digits} {currency}"


def symbol(currency: str) -> str:
    """What stands beside an amount a person types in ``currency``: its symbol, or its code."""
    return SYMBOLS.get(currency, currency)


def typed_amount(text: str) -> str:
    """What a person typed for an amount without a currency symbol or code around it and
    without grouping ("£1.68", "1.68 GBP", "$1,000" -> "1.68", "1.68", "1000"): to be parsed."""
    bare = text.strip()
    for symbol in SYMBOLS.values():
        bare = bare.removeprefix(symbol)
    for code in SYMBOLS:
        bare = bare.removesuffix(code)
    return bare.strip().replace(",", "")
