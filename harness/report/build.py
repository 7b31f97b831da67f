"""Assemble the report `Document` from a `Characterization`: summary first, then each property."""

from __future__ import annotations

from harness.characterize import Characterization
from harness.report.arms import arms_section, summary_row
from harness.report.compare import (
    closest_pair,
    closest_pair_verdict,
    mrds_section,
    pair_verdicts,
    reproducibility_section,
    screening_section,
    systems_section,
)
from harness.report.document import METHODS_CITATION, Document, Section, Table
from harness.report.numbers import interval, num
from harness.report.resolution import resolution_figure, resolution_section
from harness.report.sections import (
    card_section,
    precision_section,
    rank_stability_section,
    repeatability_section,
)
from harness.report.verdict import reproduction_verdict


def build_document(c: Characterization) -> Document:
    """The whole report: headline figures, the cards, then every property with its meaning."""
    new, orig = c.new_instrument.name, c.original_instrument.name
    arms = arms_section(c)
    return Document(
        title=f"{new} characterized against {orig}",
        subtitle=f"Every figure is defined in {METHODS_CITATION}, section 6; values for all "
        "judgments "
        + ("and for the screened set side by side." if c.screened else "(no screened set given)."),
        sections=[
            summary_section(c),
            *([] if arms is None else [arms]),
            card_section(c),
            repeatability_section(c),
            precision_section(c),
            rank_stability_section(c),
            reproducibility_section(c),
            resolution_section(c),
            systems_section(c),
            mrds_section(c),
            screening_section(c),
            settings_section(c),
        ],
    )


def summary_section(c: Characterization) -> Section:
    new, orig = c.new.repeatability, c.original.repeatability
    r = c.reproducibility
    rows = [
        ["alpha, new [95% interval]", f"{num(new.alpha)} {interval(new.ci)} ({new.verdict})"],
        [
            "alpha, original [95% interval]",
            f"{num(orig.alpha)} {interval(orig.ci)} ({orig.verdict})",
        ],
        ["shared items", f"{r.overlap.n_shared:,}"],
        [
            "Spearman rho / Pearson r of item means",
            f"{num(r.spearman_means)} / {num(r.pearson_means)}",
        ],
        ["Pearson r of item sds", num(r.pearson_sds)],
        [
            "mean item sd, new / original",
            f"{num(c.new.precision.mean_sd)} / {num(c.original.precision.mean_sd)}",
        ],
    ]
    if c.screened is not None:
        rows.insert(
            1,
            [
                f"alpha, new screened ({c.screened.policy})",
                f"{num(c.screened.new.repeatability.alpha)} "
                f"{interval(c.screened.new.repeatability.ci)} "
                f"({c.screened.new.repeatability.verdict})",
            ],
        )
    if c.resolution is not None:
        rows.append(["resolution (95% agreement)", resolution_figure(c.resolution)])
    if c.arms is not None:
        rows.insert(0, summary_row(c.arms))
    pair = closest_pair(c)
    if pair is not None:
        for name, sentence in pair_verdicts(c):
            rows.append([f"{name} tells {pair[0]} from {pair[1]}?", sentence])
    verdict = reproduction_verdict(c)
    criteria = Table(
        ["criterion", "rule", "observed", "met?"],
        [[k.name, k.rule, k.observed, "yes" if k.met else "no"] for k in verdict.criteria],
        caption="The verdict's criteria, on all judgments of the shared items (a screened set "
        "never decides alone).",
    )
    systems_line = (
        closest_pair_verdict(c)
        if c.systems is not None
        else "No systems were given; see the MRDS table for the smallest difference in rho "
        "this instrument could detect."
    )
    if c.self_comparison and c.resolution is not None:
        # A resolution study of the original on its own: no reproduction to judge.
        return Section(
            "Summary",
            f"The resolution of {c.original_instrument.name} by this crowd: "
            f"{resolution_figure(c.resolution)} (the smallest distance in the original at "
            f"which the crowd orders pairs of pairs like it {c.resolution.target:.0%} of the "
            "time; 95% bootstrap interval over the pairs of pairs).",
            [systems_line, Table(["figure", "value"], [r for r in rows if not _self(r)])],
            anchor="summary",
        )
    return Section(
        "Summary",
        verdict.sentence(),
        [criteria, systems_line, Table(["figure", "value"], rows)],
        anchor="summary",
    )


def _self(row: list[str]) -> bool:
    """A summary row that compares the instrument with itself (new against original)."""
    return row[0].startswith(
        ("alpha, new", "shared items", "Spearman rho", "Pearson r", "mean item")
    )


def settings_section(c: Characterization) -> Section:
    s = c.settings
    return Section(
        "Settings",
        "Re-running with the same inputs and settings gives the same figures.",
        [
            Table(
                ["setting", "value"],
                [[k.replace("_", " "), str(v)] for k, v in s.items()],
            )
        ],
        anchor="settings",
    )
