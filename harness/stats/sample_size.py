"""Minimum number of items per category for a reliability study (Bloch and Kraemer 1989).

Bloch, D. A. and Kraemer, H. C. (1989). 2 x 2 kappa coefficients: measures of agreement or
association. Biometrics 45(1), 269-287; in the form Krippendorff (2004, *Content Analysis*,
2nd ed., section 11.4.4) gives for alpha and METHODS.md section 5:

    N_c = z^2 (1 + a)(3 - a) / (4 p_c (1 - p_c)(1 - a)) - a

with a = alpha_min, p_c the proportion of the least frequent category, and z the one-tailed
standard normal quantile of the significance level (z = 1.645 at 0.05). Round N_c up.
"""

from __future__ import annotations

import math

from scipy import stats

from harness.errors import InputError


def bloch_kraemer_items(p_c: float, alpha_min: float = 0.667, significance: float = 0.05) -> float:
    """N_c as a real number (see the module docstring); `math.ceil` it for a count."""
    if not 0 < p_c < 1:
        raise InputError(f"p_c: expected a proportion strictly between 0 and 1, got {p_c}")
    if not -1 < alpha_min < 1:
        raise InputError(f"alpha_min: expected a value below 1, got {alpha_min}")
    if not 0 < significance < 1:
        raise InputError(f"significance: expected a probability, got {significance}")
    z = float(stats.norm.isf(significance))
    a = alpha_min
    return z * z * (1 + a) * (3 - a) / (4 * p_c * (1 - p_c) * (1 - a)) - a


def bloch_kraemer_min_items(
    p_c: float, alpha_min: float = 0.667, significance: float = 0.05
) -> int:
    """The minimum whole number of items: ceil(N_c)."""
    return math.ceil(bloch_kraemer_items(p_c, alpha_min, significance) - 1e-9)
