"""One agreement summary of a judgment table: alpha, its bootstrap interval, q and the verdict.

This is what `harness agreement` prints and what reports embed; the statistics themselves live
in `harness.stats.alpha` (alpha), `harness.stats.bootstrap` (interval and q) and
`harness.stats.reliability` (verdict).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.errors import JudgmentsError
from harness.stats._table import carries_value
from harness.stats.alpha import Level, alpha_parts
from harness.stats.bootstrap import BootstrapResult, Method, bootstrap_alpha
from harness.stats.pairable import pairable_values
from harness.stats.reliability import DEFAULT_ALPHA_MIN, interval_warning, verdict


@dataclass(frozen=True)
class AgreementSummary:
    """Alpha of one table with its context; ``bootstrap`` is None when none was asked for."""

    level: Level
    alpha: float
    d_o: float
    d_e: float
    n_items: int
    n_workers: int
    n_judgments: int
    n_skipped: int
    n_pairable_items: int
    n_pairable_values: int
    alpha_min: float
    bootstrap: BootstrapResult | None
    units_check: BootstrapResult | None = None  # the units bootstrap beside a kalpha one

    @property
    def narrower(self) -> float | None:
        """How many times the units interval is wider than the kalpha one (None: no kalpha)."""
        b, u = self.bootstrap, self.units_check
        if b is None or u is None or not b.ci_high > b.ci_low:
            return None
        return (u.ci_high - u.ci_low) / (b.ci_high - b.ci_low)

    @property
    def verdict(self) -> str:
        return verdict(self.alpha).value

    @property
    def warning(self) -> str | None:
        return (
            None
            if self.bootstrap is None
            else interval_warning(self.bootstrap.ci_low, self.alpha_min)
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the `harness agreement --json` object)."""
        b = self.bootstrap
        return {
            "alpha": self.alpha,
            "level": self.level,
            "n_items": self.n_items,
            "n_workers": self.n_workers,
            "n_judgments": self.n_judgments,
            "n_skipped": self.n_skipped,
            "n_pairable_items": self.n_pairable_items,
            "n_pairable_values": self.n_pairable_values,
            "d_o": self.d_o,
            "d_e": self.d_e,
            "ci_low": None if b is None else b.ci_low,
            "ci_high": None if b is None else b.ci_high,
            "confidence": None if b is None else b.confidence,
            "alpha_min": self.alpha_min,
            "q_below_min": None if b is None else b.q_below_min,
            "q_table": None
            if b is None
            else [{"alpha_min": a, "q": q} for a, q in sorted(b.q_table.items(), reverse=True)],
            "verdict": self.verdict,
            "warning": self.warning,
            "bootstrap": None
            if b is None
            else {
                "method": b.method,
                "resamples": b.resamples,
                "seed": b.seed,
                "n_undefined": b.n_undefined,
                "draws_per_resample": b.draws,
            },
            "units_interval": None
            if self.units_check is None
            else {
                "ci_low": self.units_check.ci_low,
                "ci_high": self.units_check.ci_high,
                "units_width_over_kalpha_width": self.narrower,
                "note": KALPHA_NOTE,
            },
        }


KALPHA_NOTE = (
    "kalpha resamples pairs of values pooled over all items, as if every pair were independent, "
    "so it leaves out how agreement varies from item to item; the units bootstrap (resampling "
    "items) keeps it, and its interval is the one to report"
)


def summarize_agreement(
    judgments: pd.DataFrame,
    level: Level = "interval",
    *,
    resamples: int = 1000,
    method: Method = "units",
    alpha_min: float = DEFAULT_ALPHA_MIN,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> AgreementSummary:
    """Alpha of ``judgments`` at ``level``, with a bootstrap when ``resamples`` > 0.

    With ``method="kalpha"`` the units bootstrap is computed too (``units_check``), so that
    whoever chooses kalpha sees how much narrower its interval is than the one that resamples
    items.

    Raises `JudgmentsError` when fewer than two workers gave a value (agreement needs two).
    """
    if "worker_id" in judgments.columns and "value" in judgments.columns:
        workers = judgments.loc[carries_value(judgments), "worker_id"].nunique()
        if workers < 2:
            raise JudgmentsError(
                f"agreement needs at least two workers with a value; found {workers}"
            )
    pairable = pairable_values(judgments, numeric=level != "nominal")
    parts = alpha_parts(pairable, level)

    def bootstrap(by: Method) -> BootstrapResult:
        return bootstrap_alpha(
            pairable,
            level,
            method=by,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            alpha_min=alpha_min,
        )

    boot = bootstrap(method) if resamples > 0 else None
    units_check = bootstrap("units") if boot is not None and method == "kalpha" else None
    n_skipped = len(judgments) - pairable.n_judgments
    return AgreementSummary(
        level=level,
        alpha=parts.alpha,
        d_o=parts.d_o,
        d_e=parts.d_e,
        n_items=pairable.n_items,
        n_workers=int(pairable.n_workers or 0),
        n_judgments=len(judgments),
        n_skipped=n_skipped,
        n_pairable_items=pairable.n_units,
        n_pairable_values=pairable.n_values,
        alpha_min=alpha_min,
        bootstrap=boot,
        units_check=units_check,
    )
