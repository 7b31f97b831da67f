"""Statistics core: agreement, reliability and the tests the reports need.

Plain functions over the long judgment table (``item_id, worker_id, value[, skipped]``) or
numpy arrays; each module documents its formulas and their sources. harness never imports the
GPL ``krippendorff`` package; the tests compare against it.
"""

from harness.stats.agreement import AgreementSummary, summarize_agreement
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
from harness.stats.correlation import (
    leave_one_out_correlations,
    mean_pairwise_spearman,
    pairwise_spearman,
)
from harness.stats.dependent import SignificanceResult, steiger_z, williams_t
from harness.stats.kappa import cohen_kappa, cohen_kappa_workers, fleiss_kappa, fleiss_kappa_counts
from harness.stats.mrds import formula_mrds, formula_table, mrds, mrds_table
from harness.stats.pairable import Pairable, pairable_from_codes, pairable_values
from harness.stats.reliability import DEFAULT_ALPHA_MIN, Verdict, interval_warning, verdict
from harness.stats.sample_size import bloch_kraemer_items, bloch_kraemer_min_items
from harness.stats.spearman_difference import (
    SpearmanComparison,
    compare_spearman,
    required_difference,
    spearman_mrds,
    spearman_mrds_table,
)
from harness.stats.summaries import item_summaries, worker_summaries

__all__ = [
    "DEFAULT_ALPHA_MIN",
    "KALPHA_ALPHA_MINS",
    "LEVELS",
    "METHODS",
    "AgreementSummary",
    "AlphaParts",
    "BootstrapResult",
    "Level",
    "Method",
    "Pairable",
    "SignificanceResult",
    "SpearmanComparison",
    "Verdict",
    "alpha_from_arrays",
    "alpha_parts",
    "bloch_kraemer_items",
    "bloch_kraemer_min_items",
    "bootstrap_alpha",
    "cohen_kappa",
    "compare_spearman",
    "cohen_kappa_workers",
    "fleiss_kappa",
    "fleiss_kappa_counts",
    "formula_mrds",
    "formula_table",
    "interval_warning",
    "item_summaries",
    "krippendorff_alpha",
    "leave_one_out_correlations",
    "mean_pairwise_spearman",
    "mrds",
    "mrds_table",
    "pairable_from_codes",
    "pairable_values",
    "pairwise_spearman",
    "required_difference",
    "spearman_mrds",
    "spearman_mrds_table",
    "steiger_z",
    "summarize_agreement",
    "verdict",
    "williams_t",
    "worker_summaries",
]
