"""The report's verdict: does the new instrument reproduce the original? Criteria stated.

A reproduction is judged on all judgments (the honesty rule: a screened set never decides
alone) by three criteria, each on the shared items:

- **reliability**: the new alpha's 95% interval reaches the original's alpha (the new
  instrument is not less reliable than the original beyond what resampling items explains);
  without an interval, the new alpha itself must reach it;
- **order**: Spearman's rho between the two instruments' item means is at least
  `MIN_RHO` (0.9). Two independent panels of 13 WS353 raters are expected to agree at about
  0.95 (Spearman-Brown from the original's alpha of 0.59), so 0.9 leaves room for sampling and
  excludes an instrument that reorders items;
- **precision**: the mean item sd is within `SD_TOLERANCE` (20%) of the original's.

"reproduces" when all three hold, else "does not reproduce", naming what failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.characterize import Characterization
from harness.report.numbers import interval, num

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

    @property
    def reproduces(self) -> bool:
        return all(c.met for c in self.criteria)

    def sentence(self) -> str:
        """One sentence: the verdict and why."""
        if self.reproduces:
            return (
                f"Verdict: {self.new} reproduces {self.original}: it is as reliable, orders "
                "the items the same way and spreads as much (criteria below)."
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
    reach = new_alpha.ci[1] if new_alpha.ci is not None else new_alpha.alpha
    ratio = r.mean_sd_new / r.mean_sd_original if r.mean_sd_original else float("nan")
    criteria = [
        Criterion(
            "reliability",
            "the new alpha's 95% interval reaches the original's alpha",
            f"new {num(new_alpha.alpha)} {interval(new_alpha.ci)}, original "
            f"{num(original_alpha.alpha)}",
            bool(reach >= original_alpha.alpha),
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
    return ReproductionVerdict(c.new_instrument.name, c.original_instrument.name, criteria)
