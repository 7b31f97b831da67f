"""MRDS: the minimum required difference for significance of an instrument with n items.

METHODS.md section 6 (after Rastogi, Van Durme & Arora 2015, "Multiview LSA", NAACL, who
introduced MRDS for word-similarity benchmarks): the smallest sigma such that Steiger's (1980)
test (`harness.stats.dependent.steiger_z`) on r_AT = r, r_BT = r + sigma, r_AB gives p < p0.
Two systems A and B are scored against the instrument T on its n items; a difference between
their correlations below the MRDS cannot be significant under those settings.

r_AB, the two systems' correlation with each other, decides much: the more the systems agree
with each other, the smaller a difference Steiger's test detects. The planning table
(`mrds_table`) sets r_AB = r, as the method's authors did; for two systems whose scores are
known, `mrds(..., r_ab=...)` gives the MRDS at their actual correlation, which is the one that
says whether their difference can be significant.

Solved by bracketing root finding (scipy's brentq) of p(sigma) - p0 on 0 < sigma < 1 - r,
where p is decreasing in sigma. p is two-tailed by default. NaN when even sigma -> 1 - r does
not reach p0.

`formula_mrds` is the closed form the published MRDS tables fit, sigma = z(1 - p0)
sqrt(2 (1 - r) / n) (one-tailed z, no Fisher transform, no r_AB): kept to reproduce those
tables, not to decide anything. It is larger than Steiger's MRDS at every r (12.38 against
10.77 hundredths at r = 0.5, p0 = 0.01, n = 353), so a table made with it overstates what an
instrument needs; a Monte Carlo of the test agrees with Steiger's value
(tests/stats/test_mrds.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import brentq

from harness.errors import InputError
from harness.stats.dependent import steiger_z

DEFAULT_RS: tuple[float, ...] = (0.5, 0.7, 0.9)
DEFAULT_P0S: tuple[float, ...] = (0.01, 0.05)


def mrds(
    n: int, r: float, p0: float, *, r_ab: float | None = None, two_tailed: bool = True
) -> float:
    """The smallest sigma with Steiger's p(r, r + sigma, r_ab; n) < p0 (r_ab defaults to r)."""
    check_r_p0(r, p0)
    between = r if r_ab is None else r_ab
    if not -1 < between < 1:
        raise InputError(f"r_ab: expected a correlation between -1 and 1, got {between}")

    def excess(sigma: float) -> float:
        return steiger_z(r, r + sigma, between, n, two_tailed=two_tailed).p - p0

    top = (1 - r) * (1 - 1e-12)
    if excess(top) >= 0:
        return float("nan")
    return float(brentq(excess, 1e-15, top, xtol=1e-12, rtol=1e-12))


def mrds_table(
    n: int,
    rs: Sequence[float] = DEFAULT_RS,
    p0s: Sequence[float] = DEFAULT_P0S,
    *,
    two_tailed: bool = True,
) -> pd.DataFrame:
    """MRDS for each r (rows) and p0 (columns) at n items, with r_AB = r (for planning)."""
    return r_p0_table(lambda r, p0: mrds(n, r, p0, two_tailed=two_tailed), rs, p0s)


def formula_mrds(n: int, r: float, p0: float) -> float:
    """The published tables' closed form: z(1 - p0) sqrt(2 (1 - r) / n), one-tailed."""
    check_r_p0(r, p0)
    if n < 1:
        raise InputError(f"n: at least 1 item is needed, got {n}")
    return float(stats.norm.ppf(1 - p0) * math.sqrt(2 * (1 - r) / n))


def formula_table(
    n: int, rs: Sequence[float] = DEFAULT_RS, p0s: Sequence[float] = DEFAULT_P0S
) -> pd.DataFrame:
    """`formula_mrds` for each r (rows) and p0 (columns) at n items."""
    return r_p0_table(lambda r, p0: formula_mrds(n, r, p0), rs, p0s)


def r_p0_table(
    figure: Callable[[float, float], float], rs: Sequence[float], p0s: Sequence[float]
) -> pd.DataFrame:
    """``figure(r, p0)`` for each r (rows, index ``r``) and p0 (columns, ``p0``)."""
    data = np.array([[figure(r, p0) for p0 in p0s] for r in rs])
    return pd.DataFrame(
        data, index=pd.Index(list(rs), name="r"), columns=pd.Index(list(p0s), name="p0")
    )


def check_r_p0(r: float, p0: float) -> None:
    """`InputError` unless 0 < p0 < 1 and -1 < r < 1."""
    if not 0 < p0 < 1:
        raise InputError(f"p0: expected a probability between 0 and 1, got {p0}")
    if not -1 < r < 1:
        raise InputError(f"r: expected a correlation between -1 and 1, got {r}")
