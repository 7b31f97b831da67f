"""Amounts as the requester API and the control endpoint take them: "0.50" strings, in cents."""

from __future__ import annotations

import re
from decimal import Decimal

from harness.providers.mturk import pricing

# Largest amount taken anywhere (a reward, a bonus, a balance): far above any real account, small
# enough that every sum the service makes stays exact in Decimal's 28 digits.
MOST = Decimal("1000000000.00")
# ASCII digits with an optional decimal part: no exponents, signs, underscores or other scripts'
# digits, which Python's Decimal would all take.
_AMOUNT = re.compile(r"[0-9]+(\.[0-9]+)?")


def parse(text: object) -> Decimal:
    """A non-negative amount in cents no larger than MOST; ValueError saying why otherwise."""
    if not isinstance(text, str):
        raise ValueError(f'expected an amount such as "0.50" (a string), got {text!r}')
    if not _AMOUNT.fullmatch(text):
        raise ValueError(f'not a currency amount such as "0.50": {text!r}')
    try:
        value = pricing.parse_amount(text)
    except (ValueError, ArithmeticError) as exc:
        raise ValueError(f'not a currency amount such as "0.50": {text!r}') from exc
    if value > MOST:
        raise ValueError(f"{text!r} is more than the largest amount taken ({MOST})")
    return value
