"""A comparison of arms as the reports carry it: its JSON record and its sentences, shared by
`harness compare-arms` and the Arms section of `harness characterize`'s report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.characterize.arm_controls import ArmControls
from harness.characterize.arms import ArmComparison, ArmDifference

CHECKED = "identical pairs, repeated items and gold items"


@dataclass(frozen=True)
class ArmsFigures:
    """A study's arms in a characterization: the comparison (None, with the ``problem``, when
    it could not be made), the arm the report's instrument figures are of, the original the
    arms were asked to reproduce (None: none), and the platform whose fees the costs include."""

    study: str
    arms: list[str]  # the spec's order: the first is the base
    characterized: str
    comparison: ArmComparison | None
    problem: str | None = None
    reference: str | None = None
    fees_of: str = ""
    currency: str = "USD"  # the study's, of the costs

    def to_dict(self) -> dict[str, Any]:
        figures = {} if self.comparison is None else arms_record(self.comparison)
        return {
            "study": self.study,
            "arms_in_order": self.arms,
            "characterized_arm": self.characterized,
            "problem": self.problem,
            "reference_name": self.reference,
            "fees_of": self.fees_of,
            "currency": self.currency,
        } | figures


def arms_record(r: ArmComparison) -> dict[str, Any]:
    """Every figure of the comparison with stable keys (docs/arms.md)."""
    return {
        "level": r.level,
        "confidence": r.confidence,
        "resamples": r.resamples,
        "seed": r.seed,
        "power": r.power,
        "difference_method": str(r.difference_method),
        "relabelings": r.relabelings,
        "arms": [vars(a) for a in r.arms],
        "differences": [vars(d) | {"verdict": d.verdict} for d in r.differences],
        "controls": [vars(c) for c in r.controls],
        "reference": [vars(f) for f in r.reference],
        "best_reference": r.best_reference,
    }


def raters_needed_phrase(d: ArmDifference) -> str:
    """How many raters per item per arm would tell the two arms apart, in words."""
    if d.raters_needed is not None:
        return f"about {d.raters_needed} raters per item per arm"
    if d.difference == 0:
        return "no finite number of raters (no difference observed)"
    return "more raters than any study would pay"


def percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def controls_phrase(c: ArmControls, base: str) -> str:
    """``46 of 50 checks by 3 workers: 92% [81%, 97%]; against base -32 points [-47, -15]``."""
    if not c.checks:
        return "no checks"
    text = (
        f"{c.passed} of {c.checks} checks by {c.workers} worker{'s' * (c.workers != 1)}: "
        f"{percent(c.share)} [{percent(c.low)}, {percent(c.high)}]"
    )
    if c.difference is not None and c.diff_low is not None and c.diff_high is not None:
        text += (
            f"; against {base} {100 * c.difference:+.0f} points "
            f"[{100 * c.diff_low:+.0f}, {100 * c.diff_high:+.0f}]"
        )
    return text
