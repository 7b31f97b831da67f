"""Intervals for a proportion and for the difference of two independent proportions.

- **Wilson's score interval** for k successes in n trials (Wilson, E. B. (1927). Probable
  inference, the law of succession, and statistical inference. JASA 22, 209-212): with
  p = k / n and z the normal quantile of the confidence level,
  (p + z^2 / 2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n).
  Unlike p +- z se, it stays inside [0, 1] and has a width at p = 0 and p = 1.
- **Newcombe's hybrid score interval** for p1 - p2 (Newcombe, R. G. (1998). Interval
  estimation for the difference between independent proportions: comparison of eleven
  methods. Statistics in Medicine 17, 873-890; method 10), from the two Wilson intervals
  [l1, u1] and [l2, u2]: d = p1 - p2, lower d - sqrt((p1 - l1)^2 + (u2 - p2)^2), upper
  d + sqrt((u1 - p1)^2 + (p2 - l2)^2).

Both treat the n trials as independent.
"""

from __future__ import annotations

import math

from scipy import stats

from harness.errors import StatsError


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for ``k`` successes in ``n`` trials (module docstring)."""
    _check(k, n)
    z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    p = k / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_difference(
    k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """p1 - p2 with Newcombe's hybrid score interval (module docstring): (d, low, high)."""
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, low), min(1.0, high)


def _check(k: int, n: int) -> None:
    if n < 1 or not 0 <= k <= n:
        raise StatsError(
            f"a proportion needs 0 <= successes <= trials and trials >= 1; got {k} of {n}"
        )
