"""Amounts as a person reads them, in the study's currency (a spec's ``platform.currency``):
$0.75, £1,000.00, 0.75 EUR. Pure; the one place a currency is written."""

from __future__ import annotations

from decimal import Decimal

SYMBOLS = {"USD": "$", "GBP": "£"}


def money(amount: Decimal, currency: str = "USD") -> str:
    """``amount`` written in ``currency`` (its symbol first where harness knows one)."""
    symbol = SYMBOLS.get(currency)
    digits = f"{amount:,}"  # thousands grouped, the amount's own decimals kept
    return f"{symbol}{digits}" if symbol else f"{digits} {currency}"
