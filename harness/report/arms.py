"""The report's Arms section: a study with arms compared arm by arm against its base, the
verdict first (docs/arms.md has every figure's definition).

The section reads the comparison `harness.characterize.arms.compare_arms` made (carried in
`Characterization.arms`); it computes nothing itself."""

from __future__ import annotations

import math

from harness import __version__
from harness.characterize import Characterization
from harness.characterize.arm_figures import (
    CHECKED,
    ArmsFigures,
    controls_phrase,
    raters_needed_phrase,
)
from harness.characterize.arms import ArmComparison, ArmDifference
from harness.money import money
from harness.report.document import Block, Section, Table
from harness.report.numbers import MISSING, num, pvalue, share

ARMS_CITATION = f"the arms documentation of harness {__version__} (docs/arms.md in its source)"


def arms_section(c: Characterization) -> Section | None:
    """The Arms section, or None when the new instrument is not an arm of a study."""
    a = c.arms
    if a is None:
        return None
    r = a.comparison
    if r is None:
        return Section(
            "Arms", f"The arms could not be compared: {a.problem}.", [_which(a)], anchor="arms"
        )
    level = f"{r.confidence:.0%}"
    blocks: list[Block] = [
        _which(a),
        f"Every arm against {a.arms[0]} (the base), on the {r.arms[0].items:,} items every arm "
        f"rated with two or more values, without the workers screening excluded; {r.level} "
        f"alpha with {level} intervals from {r.resamples:,} bootstrap resamples "
        f"({_how(r)}), seed {r.seed}. Definitions: {ARMS_CITATION}.",
        Table(
            [
                "arm",
                "workers",
                "raters per item",
                f"alpha [{level}]",
                "item sd",
                "seconds per item",
            ],
            [
                [
                    s.arm,
                    f"{s.workers:,}",
                    num(s.raters_per_item, 1),
                    f"{num(s.alpha)} {_interval(s.ci_low, s.ci_high)}",
                    num(s.item_sd, 2),
                    num(s.seconds_per_item, 1),
                ]
                for s in r.arms
            ],
            caption="Each arm on its own: alpha, the precision of one judgment (the mean of "
            "the items' sds, lower is more precise) and the median seconds of a judgment.",
        ),
        Table(
            [
                "arm",
                "against the base",
                "raters per item to tell apart",
                f"item means agree (Spearman rho [{level}])",
            ],
            [
                [
                    d.arm,
                    _difference(d, r),
                    _needed(d, r),
                    f"{num(d.rho)} {_interval(d.rho_low, d.rho_high)}",
                ]
                for d in r.differences
            ],
            caption=f"The difference of alphas (arm - base) with its {level} bootstrap "
            f"interval, the raters per item per arm that would tell the two apart at this "
            f"difference with power {r.power:.0%} (a normal approximation), and how alike the "
            "two arms order the items.",
        ),
        Table(
            ["arm", f"controls passed [{level}]", "screened out", "cost of a reliable item mean"],
            [
                [
                    s.arm,
                    _controls(r, s.arm, a.arms[0]),
                    share(s.screened_share, 0),
                    _money(s.cost_reliable, a.currency),
                ]
                for s in r.arms
            ],
            caption=f"Controls passed: {CHECKED} answered by every worker of the arm, "
            "screened out or not (Wilson interval; against the base, Newcombe's interval; "
            "both treat the checks as independent, so with few workers they are too narrow). "
            f"Cost: rewards and {a.fees_of or 'the platform'}'s fees of the judgments an item "
            "needs for its mean to reach reliability 0.8 (Spearman-Brown from the arm's alpha).",
        ),
    ]
    if r.reference:
        blocks += _reference(r, a.reference or "the original")
    return Section("Arms", arms_meaning(a), blocks, anchor="arms")


def arms_meaning(a: ArmsFigures) -> str:
    """The section's first sentence: each arm's verdict against the base (and the best
    reproduction of the original), or why there is none."""
    r = a.comparison
    if r is None:
        return f"The arms could not be compared: {a.problem}."
    if r.resamples < 1:
        return (
            "No verdict: the comparison ran without bootstrap resamples (--bootstrap 0), so "
            "the differences between arms have no intervals."
        )
    sentences = [_capital(d.verdict) + "." for d in r.differences]
    if r.reference and a.reference:
        sentences.append(f"Arm {r.best_reference}'s item means agree best with {a.reference}'s.")
    return " ".join(sentences)


def summary_row(a: ArmsFigures) -> list[str]:
    """The Summary table's row on the arms."""
    return [
        f"arms ({len(a.arms)}: {', '.join(a.arms)})",
        f"this report's instrument is arm {a.characterized}; {arms_meaning(a)}",
    ]


def _which(a: ArmsFigures) -> str:
    base = " (the base)" if a.characterized == a.arms[0] else ""
    return (
        f"{a.study} has {len(a.arms)} arms ({', '.join(a.arms)}), each its own instrument, "
        f"randomized between workers. Every other section of this report is of arm "
        f"{a.characterized}{base} alone: pooling the arms' judgments would mix instruments "
        "(harness characterize --arm NAME characterizes another arm)."
    )


def _how(r: ArmComparison) -> str:
    from harness.characterize.arms import DifferenceMethod

    return {
        DifferenceMethod.RELABEL: f"items resampled for each arm; differences tested by "
        f"{r.relabelings} relabelings of workers",
        DifferenceMethod.ITEMS: "items jointly only",
        DifferenceMethod.ITEMS_WORKERS: "items jointly, workers reweighted",
    }[r.difference_method]


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f"[{num(low)}, {num(high)}]"


def _difference(d: ArmDifference, r: ArmComparison) -> str:
    figures = f"{d.difference:+.3f} {_interval(d.ci_low, d.ci_high)}".strip()
    if r.resamples < 1:
        return figures
    if d.ci_low > 0:
        return f"more reliable: {figures}"
    if d.ci_high < 0:
        return f"less reliable: {figures}"
    return f"not distinguishable: {figures}"


def _needed(d: ArmDifference, r: ArmComparison) -> str:
    return MISSING if r.resamples < 1 else raters_needed_phrase(d)


def _controls(r: ArmComparison, arm: str, base: str) -> str:
    found = next((c for c in r.controls if c.arm == arm), None)
    return MISSING if found is None else controls_phrase(found, base)


def _money(x: float | None, currency: str) -> str:
    return MISSING if x is None else money(x, currency, 3)


def _reference(r: ArmComparison, name: str) -> list[Block]:
    level = f"{r.confidence:.0%}"
    return [
        Table(
            ["arm", f"Spearman rho with {name} [{level}]", "best against this arm (Williams' t)"],
            [
                [
                    f.arm,
                    f"{num(f.rho)} {_interval(f.rho_low, f.rho_high)}",
                    "the best" if f.p_vs_best is None else f"p = {pvalue(f.p_vs_best)}",
                ]
                for f in r.reference
            ],
            caption=f"Which arm reproduces {name}: each arm's item means against {name}'s on "
            "the compared items (Fisher-z interval), and Williams' t of the best arm against "
            "each other (the two correlations share the original's means).",
        ),
    ]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
