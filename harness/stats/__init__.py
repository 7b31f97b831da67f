"""Statistics core: agreement, reliability and the tests the reports need.

Plain functions over the long judgment table (``item_id, worker_id, value[, skipped]``) or
numpy arrays; each module documents its formulas and their sources.
"""

from harness.stats.alpha import (
    LEVELS,
    AlphaParts,
    Level,
    alpha_from_arrays,
    alpha_parts,
    krippendorff_alpha,
)
from harness.stats.bootstrap import (
    KALPHA_ALPHA_MINS,
    METHODS,
    BootstrapResult,
    Method,
    bootstrap_alpha,
)
from harness.stats.pairable import Pairable, pairable_from_codes, pairable_values
from harness.stats.reliability import DEFAULT_ALPHA_MIN, Verdict, interval_warning, verdict

__all__ = [
    "DEFAULT_ALPHA_MIN",
    "KALPHA_ALPHA_MINS",
    "LEVELS",
    "METHODS",
    "AlphaParts",
    "BootstrapResult",
    "Method",
    "Verdict",
    "bootstrap_alpha",
    "interval_warning",
    "verdict",
    "Level",
    "Pairable",
    "alpha_from_arrays",
    "alpha_parts",
    "krippendorff_alpha",
    "pairable_from_codes",
    "pairable_values",
]
