"""Amounts as a person reads them, in the study's currency (a spec's ``platform.currency``):
$0.75, £0.75, 0.75 EUR. Pure; the one place a currency is written."""

from __future__ import annotations

from decimal import Decimal

SYMBOLS = {"USD": "$", "GBP": "£"}


def money(amount: Decimal, currency: str = "USD") -> str:
    """``amount`` written in ``currency`` (its symbol first where harness knows one)."""
    symbol = SYMBOLS.get(currency)
    return f"{symbol}{amount}" if symbol else f"{amount} {currency}"
