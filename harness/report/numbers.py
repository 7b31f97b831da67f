"""How the report writes numbers: fixed decimals, p-values, shares, and missing values."""

from __future__ import annotations

import math
from typing import Any

MISSING = "n/a"


def num(x: Any, digits: int = 3) -> str:
    """A number with ``digits`` decimals; n/a when missing or not finite."""
    if x is None or not math.isfinite(float(x)):
        return MISSING
    return f"{float(x):.{digits}f}"


def signed(x: Any, digits: int = 3) -> str:
    if x is None or not math.isfinite(float(x)):
        return MISSING
    return f"{float(x):+.{digits}f}"


def pvalue(p: Any) -> str:
    """p to 3 significant places, or "< 0.001"."""
    if p is None or not math.isfinite(float(p)):
        return MISSING
    return "< 0.001" if float(p) < 0.001 else f"{float(p):.3f}"


def share(x: Any, digits: int = 1) -> str:
    if x is None or not math.isfinite(float(x)):
        return MISSING
    return f"{100 * float(x):.{digits}f}%"


def interval(ci: tuple[float, float] | list[float] | None) -> str:
    return MISSING if ci is None else f"[{num(ci[0])}, {num(ci[1])}]"


def change_percent(new: Any, old: Any) -> str:
    """(new - old) / |old| in percent, signed."""
    if new is None or old is None:
        return MISSING
    new, old = float(new), float(old)
    if not math.isfinite(new) or not math.isfinite(old) or old == 0:
        return MISSING
    return f"{100 * (new - old) / abs(old):+.1f}%"


def count(x: Any) -> str:
    """A whole number with thousands separators."""
    return f"{int(x):,}"
