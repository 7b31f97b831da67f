"""Tests for two dependent correlations that share a variable: r_jk against r_jh, given r_kh.

Both from Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix.
Psychological Bulletin 87(2), 245-251. With n observations and r_bar = (r_jk + r_jh) / 2:

- **Williams' t** (Williams 1959, as recommended by Steiger), t with n - 3 degrees of freedom:
  t = (r_jk - r_jh) sqrt((n - 1)(1 + r_kh))
      / sqrt(2 (n - 1)/(n - 3) |R| + r_bar^2 (1 - r_kh)^3),
  |R| = 1 - r_jk^2 - r_jh^2 - r_kh^2 + 2 r_jk r_jh r_kh (determinant of the 3 x 3 matrix).
- **Steiger's Z with pooled r** (Steiger's Z*, the r_bar-pooled Fisher-z test): z = atanh(r),
  Z = (z_jk - z_jh) sqrt(n - 3) / sqrt(2 - 2 s), s = psi / (1 - r_bar^2)^2,
  psi = r_kh (1 - 2 r_bar^2) - r_bar^2 (1 - 2 r_bar^2 - r_kh^2) / 2
  (the Pearson-Filon covariance of the two correlations under H0, with the pooled r_bar).

p-values are two-tailed by default (``two_tailed=False``: one-tailed, in the direction observed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from harness.errors import InputError


@dataclass(frozen=True)
class SignificanceResult:
    """A test statistic, its degrees of freedom (None for a z) and its p-value."""

    statistic: float
    p: float
    df: int | None = None


def williams_t(
    r_jk: float, r_jh: float, r_kh: float, n: int, *, two_tailed: bool = True
) -> SignificanceResult:
    """Williams' t for H0: rho_jk = rho_jh, given r_kh, on n observations (df = n - 3)."""
    _check(r_jk, r_jh, r_kh, n)
    det = 1 - r_jk**2 - r_jh**2 - r_kh**2 + 2 * r_jk * r_jh * r_kh
    r_bar = (r_jk + r_jh) / 2
    t = (r_jk - r_jh) * math.sqrt((n - 1) * (1 + r_kh))
    t /= math.sqrt(2 * (n - 1) / (n - 3) * det + r_bar**2 * (1 - r_kh) ** 3)
    tail = stats.t.sf(abs(t), n - 3)
    return SignificanceResult(
        statistic=t, p=float(min(1.0, 2 * tail if two_tailed else tail)), df=n - 3
    )


def steiger_z(
    r_jk: float, r_jh: float, r_kh: float, n: int, *, two_tailed: bool = True
) -> SignificanceResult:
    """Steiger's (1980) Z with pooled r for H0: rho_jk = rho_jh, given r_kh, on n observations."""
    _check(r_jk, r_jh, r_kh, n)
    r_bar = (r_jk + r_jh) / 2
    psi = r_kh * (1 - 2 * r_bar**2) - 0.5 * r_bar**2 * (1 - 2 * r_bar**2 - r_kh**2)
    s = psi / (1 - r_bar**2) ** 2
    z = (math.atanh(r_jk) - math.atanh(r_jh)) * math.sqrt(n - 3) / math.sqrt(2 - 2 * s)
    tail = stats.norm.sf(abs(z))
    return SignificanceResult(statistic=z, p=float(min(1.0, 2 * tail if two_tailed else tail)))


def _check(r_jk: float, r_jh: float, r_kh: float, n: int) -> None:
    for name, r in (("r_jk", r_jk), ("r_jh", r_jh), ("r_kh", r_kh)):
        if not -1 < r < 1:
            raise InputError(f"{name}: a correlation strictly between -1 and 1 is needed, got {r}")
    if n < 4:
        raise InputError(f"n: at least 4 observations are needed, got {n}")
