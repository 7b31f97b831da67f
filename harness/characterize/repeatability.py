"""Repeatability (METHODS.md sections 5 and 6): Krippendorff's alpha, its interval and verdict.

A thin view of `harness.stats.agreement.summarize_agreement` (alpha from the pairable values,
item bootstrap, q below alpha_min, Krippendorff's verdict) with the figures the report shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.stats.agreement import summarize_agreement
from harness.stats.alpha import Level
from harness.stats.reliability import DEFAULT_ALPHA_MIN


@dataclass(frozen=True)
class Repeatability:
    alpha: float
    ci: tuple[float, float] | None
    verdict: str
    q_below_min: float | None
    alpha_min: float
    warning: str | None
    level: str
    resamples: int
    seed: int | None
    n_items: int
    n_workers: int
    n_judgments: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "ci": None if self.ci is None else list(self.ci),
            "verdict": self.verdict,
            "q_below_min": self.q_below_min,
            "alpha_min": self.alpha_min,
            "warning": self.warning,
            "level": self.level,
            "bootstrap_resamples": self.resamples,
            "seed": self.seed,
            "n_items": self.n_items,
            "n_workers": self.n_workers,
            "n_judgments": self.n_judgments,
        }


def repeatability(
    judgments: pd.DataFrame,
    level: Level = "interval",
    *,
    resamples: int = 1000,
    seed: int = 0,
    alpha_min: float = DEFAULT_ALPHA_MIN,
) -> Repeatability:
    """Alpha of ``judgments`` at ``level`` with a seeded item bootstrap of ``resamples``;
    q and the interval warning against ``alpha_min`` (the study's own, when it has one)."""
    s = summarize_agreement(judgments, level, resamples=resamples, seed=seed, alpha_min=alpha_min)
    b = s.bootstrap
    return Repeatability(
        alpha=s.alpha,
        ci=None if b is None else (b.ci_low, b.ci_high),
        verdict=s.verdict,
        q_below_min=None if b is None else b.q_below_min,
        alpha_min=s.alpha_min,
        warning=s.warning,
        level=level,
        resamples=0 if b is None else b.resamples,
        seed=seed,
        n_items=s.n_items,
        n_workers=s.n_workers,
        n_judgments=s.n_judgments,
    )
