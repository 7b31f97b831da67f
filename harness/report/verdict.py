"""The report's verdict: does the new instrument reproduce the original? Criteria stated.

A reproduction is judged on all judgments (the honesty rule: a screened set never decides
alone) by three criteria, each on the shared items:

- **reliability**: the new alpha's 95% interval overlaps the original's (the two cannot be
  told apart by resampling items: "as reliable") or lies wholly above it ("more reliable");
  one wholly below is less reliable, and fails. Without intervals, the new alpha must be at
  least the original's;
- **order**: Spearman's rho between the two instruments' item means is at least
  `MIN_RHO` (0.9). Two independent panels of 13 WS353 raters are expected to agree at about
  0.95 (Spearman-Brown from the original's alpha of 0.59), so 0.9 leaves room for sampling and
  excludes an instrument that reorders items;
- **precision**: the mean item sd is within `SD_TOLERANCE` (20%) of the original's.

"reproduces" when all three hold, else "does not reproduce", naming what failed. A
reproduction of an instrument whose alphas are both unreliable (below 0.667) says so: it
reproduces an instrument one should not rely on.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.characterize import Characterization
from harness.report.numbers import interval, num
from harness.stats.reliability import TENTATIVE_AT

MIN_RHO = 0.9
SD_TOLERANCE = 0.20


@dataclass(frozen=True)
class Criterion:
    name: str
    rule: str  # the criterion, as the report states it
    observed: str  # what this characterization shows
    met: bool


@dataclass(frozen=True)
class ReproductionVerdict:
    new: str
    original: str
    criteria: list[Criterion]
    reliability: str = "as reliable"  # or "more reliable", "less reliable"
    unreliable: bool = False  # both alphas below 0.667

    @property
    def reproduces(self) -> bool:
        return all(c.met for c in self.criteria)

    def sentence(self) -> str:
        """One sentence: the verdict and why."""
        if self.reproduces:
            caveat = (
                f", but both alphas are below {TENTATIVE_AT:.3f}: it reproduces an unreliable "
                "instrument"
                if self.unreliable
                else ""
            )
            return (
                f"Verdict: {self.new} reproduces {self.original}: it is {self.reliability}, "
                f"orders the items the same way and spreads as much{caveat} (criteria below)."
            )
        failed = ", ".join(c.name for c in self.criteria if not c.met)
        return (
            f"Verdict: {self.new} does not reproduce {self.original}: the {failed} "
            f"{'criteria' if failed.count(',') else 'criterion'} failed (criteria below)."
        )


def reproduction_verdict(c: Characterization) -> ReproductionVerdict:
    """The three criteria of the module docstring on ``c`` (all judgments)."""
    r = c.reproducibility
    new_alpha, original_alpha = r.alpha_new, r.alpha_original
    reliability = _compared(new_alpha.alpha, new_alpha.ci, original_alpha.alpha, original_alpha.ci)
    ratio = r.mean_sd_new / r.mean_sd_original if r.mean_sd_original else float("nan")
    criteria = [
        Criterion(
            "reliability",
            RELIABILITY_RULE,
            f"new {num(new_alpha.alpha)} {interval(new_alpha.ci)}, original "
            f"{num(original_alpha.alpha)} {interval(original_alpha.ci)}: {reliability}",
            reliability != "less reliable",
        ),
        Criterion(
            "order",
            f"Spearman rho of the item means >= {MIN_RHO:g}",
            f"rho {num(r.spearman_means)} on {r.overlap.n_shared:,} shared items",
            bool(r.spearman_means >= MIN_RHO),
        ),
        Criterion(
            "precision",
            f"mean item sd within {SD_TOLERANCE:.0%} of the original's",
            f"{num(r.mean_sd_new)} against {num(r.mean_sd_original)} ({(ratio - 1) * 100:+.0f}%)",
            bool(abs(ratio - 1) <= SD_TOLERANCE),
        ),
    ]
    return ReproductionVerdict(
        c.new_instrument.name,
        c.original_instrument.name,
        criteria,
        reliability,
        unreliable=max(new_alpha.alpha, original_alpha.alpha) < TENTATIVE_AT,
    )


RELIABILITY_RULE = (
    "the new alpha's 95% interval overlaps the original's (as reliable) or lies above it "
    "(more reliable)"
)


def _compared(
    new: float,
    new_ci: tuple[float, float] | None,
    original: float,
    original_ci: tuple[float, float] | None,
) -> str:
    """ "as reliable", "more reliable" or "less reliable": the intervals compared, or without
    both intervals the alphas themselves (at least the original's is as reliable)."""
    if new_ci is None or original_ci is None:
        if new > original:
            return "more reliable"
        return "as reliable" if new == original else "less reliable"
    if new_ci[0] > original_ci[1]:
        return "more reliable"
    if new_ci[1] < original_ci[0]:
        return "less reliable"
    return "as reliable"
