"""MRDS: the minimum required difference for significance of an instrument with n items.

METHODS.md section 6 (after Rastogi, Van Durme & Arora 2015, "Multiview LSA", NAACL, who
introduced MRDS for word-similarity benchmarks): the smallest sigma such that Steiger's (1980)
test (`harness.stats.dependent.steiger_z`) on r_AT = r, r_BT = r + sigma, r_AB = r gives
p < p0. Two systems A and B are scored against the instrument T on its n items; a difference
between their correlations below the MRDS cannot be significant under those settings.

Solved by bracketing root finding (scipy's brentq) of p(sigma) - p0 on 0 < sigma < 1 - r,
where p is decreasing in sigma. p is two-tailed by default. NaN when even sigma -> 1 - r does
not reach p0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from harness.errors import InputError
from harness.stats.dependent import steiger_z

DEFAULT_RS: tuple[float, ...] = (0.5, 0.7, 0.9)
DEFAULT_P0S: tuple[float, ...] = (0.01, 0.05)


def mrds(n: int, r: float, p0: float, *, two_tailed: bool = True) -> float:
    """The smallest sigma with Steiger's p(r, r + sigma, r; n) < p0."""
    if not 0 < p0 < 1:
        raise InputError(f"p0: expected a probability between 0 and 1, got {p0}")
    if not -1 < r < 1:
        raise InputError(f"r: expected a correlation between -1 and 1, got {r}")

    def excess(sigma: float) -> float:
        return steiger_z(r, r + sigma, r, n, two_tailed=two_tailed).p - p0

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
    """MRDS for each r (rows) and p0 (columns) at n items."""
    data = np.array([[mrds(n, r, p0, two_tailed=two_tailed) for p0 in p0s] for r in rs])
    return pd.DataFrame(
        data,
        index=pd.Index(list(rs), name="r"),
        columns=pd.Index(list(p0s), name="p0"),
    )
