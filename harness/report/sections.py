"""The report's sections for each instrument on its own: card, repeatability, precision, rank
stability. Each section ends with its figures' tables and plots and one sentence of meaning."""

from __future__ import annotations

import numpy as np

from harness.characterize import Characterization, InstrumentFigures, Precision
from harness.report import plots
from harness.report.document import METHODS_CITATION, Plot, Section, Table
from harness.report.numbers import interval, num, share


def columns(c: Characterization) -> dict[str, InstrumentFigures]:
    """The instruments shown side by side: new (all judgments), new (screened), original."""
    out = {f"{c.new_instrument.name} (new, all judgments)": c.new}
    if c.screened is not None:
        out[f"{c.new_instrument.name} (new, screened: {c.screened.policy})"] = c.screened.new
    out[f"{c.original_instrument.name} (original)"] = c.original
    return out


def card_section(c: Characterization) -> Section:
    cards = [c.new.card, c.original.card]
    labels: list[str] = []
    for card in cards:
        labels += [k for k in card.rows if k not in labels]
    rows = [[label, *[card.rows.get(label, "not known") for card in cards]] for label in labels]
    return Section(
        title="Measurement procedure cards",
        anchor="card",
        meaning="Two sets of scores are only comparable when these procedures match; every "
        "difference listed here (scale, raters, guidelines, screening) is a possible cause of "
        "the differences measured below.",
        blocks=[
            Table(
                ["", f"{c.new_instrument.name} (new)", f"{c.original_instrument.name} (original)"],
                rows,
            )
        ],
    )


def repeatability_section(c: Characterization) -> Section:
    rows = []
    for name, f in columns(c).items():
        r = f.repeatability
        rows.append(
            [
                name,
                num(r.alpha),
                interval(r.ci),
                r.verdict,
                num(r.q_below_min),
                f"{r.n_items:,} / {r.n_workers:,} / {r.n_judgments:,}",
            ]
        )
    new = c.new.repeatability
    meaning = (
        f"Krippendorff's alpha of {num(new.alpha)} ({new.verdict}) means raters of the new "
        "instrument agree on an item "
        + (
            "well enough to rely on its scores"
            if new.verdict == "reliable"
            else "less than Krippendorff's 0.800 asks for, so a system's score on it mixes the "
            "system's quality with rater noise"
        )
        + "."
    )
    first = c.new.repeatability
    mins = {n: f.repeatability.alpha_min for n, f in columns(c).items()}
    below = (
        f"alpha_min = {first.alpha_min:.3f}"
        if len(set(mins.values())) == 1
        else "each instrument's alpha_min ("
        + ", ".join(f"{n} {a:.3f}" for n, a in mins.items())
        + ")"
    )
    paragraph = (
        f"Alpha at the {first.level} level, from all pairable values; {first.resamples} "
        f"bootstrap resamples of items (seed {first.seed}), percentile 95% interval; q is the "
        f"share of bootstrap alphas below {below}. Verdict: >= 0.800 "
        f"reliable, 0.667-0.800 tentative, below unreliable ({METHODS_CITATION}, section 5)."
    )
    warnings = [
        f"{n}: {f.repeatability.warning}" for n, f in columns(c).items() if f.repeatability.warning
    ]
    return Section(
        title="Repeatability",
        anchor="repeatability",
        meaning=meaning,
        blocks=[
            Table(
                [
                    "instrument",
                    "alpha",
                    "95% interval",
                    "verdict",
                    "q",
                    "items / raters / judgments",
                ],
                rows,
            ),
            paragraph,
            *warnings,
        ],
    )


def precision_section(c: Characterization) -> Section:
    shown = columns(c)
    rows = []
    for name, f in shown.items():
        p = f.precision
        rows.append(
            [
                name,
                f"{len(p.summaries):,}",
                num(p.mean_sd),
                num(p.sd_sd),
                f"{num(p.band[0])} to {num(p.band[1])}",
                f"{num(p.band_mean_sd[0])} to {num(p.band_mean_sd[1])}",
            ]
        )
    extremes = []
    for label, instrument, f in (
        ("new", c.new_instrument, c.new),
        ("original", c.original_instrument, c.original),
    ):
        p = f.precision
        for kind, ids in (("highest", p.highest), ("lowest", p.lowest)):
            extremes.append(
                [
                    f"{instrument.name} ({label})",
                    kind,
                    "; ".join(f"{instrument.label(i)} sd {num(p.sd[i], 2)}" for i in ids),
                ]
            )
    scale = c.original_instrument.scale_range
    p = c.new.precision
    meaning = (
        f"One rater's score on an item typically lies about {num(p.mean_sd, 2)} points from "
        f"the item's mean (middle two thirds of items: {num(p.band[0], 2)} to "
        f"{num(p.band[1], 2)}); {_crescent_reading(p, scale)}"
    )
    return Section(
        title="Precision",
        anchor="precision",
        meaning=meaning,
        blocks=[
            Table(
                [
                    "instrument",
                    "items",
                    "mean sd",
                    "sd of sds",
                    "middle two thirds of items",
                    "mean sd +- sd of sds",
                ],
                rows,
                caption="Per-item sample sd (ddof = 1: an item's raters are a sample of the "
                "raters it could have had) over items with two or more values. Middle two "
                "thirds: the 1/6 and 5/6 quantiles of the item sds; mean sd +- sd of sds is the "
                "band the WS353 study reports (1.16 to 2.24 on its 13 raters).",
            ),
            Table(["instrument", "sd", "items"], extremes),
            Plot(
                "crescent",
                plots.crescent({n: f.precision for n, f in shown.items()}, scale),
                "Crescent plots: per-item sd against per-item mean. Items at the ends of the "
                "scale cannot spread as far as items in the middle.",
            ),
        ],
    )


def rank_stability_section(c: Characterization) -> Section:
    rows = []
    for name, f in columns(c).items():
        for r in (f.rank_stability, f.rank_stability_resolution):
            if r is None:
                continue
            criterion = r.criterion + ("" if r.threshold is None else f" t = {num(r.threshold, 2)}")
            rows.append(
                [
                    name,
                    criterion,
                    share(r.share_inseparable),
                    num(r.neighbours.mean(), 1),
                    str(int(r.neighbours.max())),
                ]
            )
    r = c.new.rank_stability
    meaning = (
        f"{share(r.share_inseparable)} of the new instrument's item pairs lie within one "
        "standard error of each other: a system is not wrong to order those pairs either way, "
        "and rank correlations against this instrument count them as errors anyway."
    )
    return Section(
        title="Rank stability",
        anchor="rank-stability",
        meaning=meaning,
        blocks=[
            Table(
                [
                    "instrument",
                    "criterion",
                    "item pairs not separable",
                    "other items within, mean",
                    "max",
                ],
                rows,
            ),
            "Standard error: item j lies within one standard error of item i when |m_j - m_i| "
            "<= s_i / sqrt(n_i) (sample sd); a pair is not separable when either item lies "
            "within one standard error of the other. Resolution: a pair is not separable when "
            "its distance is below the resolution t.",
        ],
    )


def _crescent_reading(p: Precision, scale: tuple[float, float] | None) -> str:
    """What the crescent plot says, from the correlation of sd with distance from the middle."""
    middle = (scale[0] + scale[1]) / 2 if scale else float(p.mean.mean())
    off_centre = (p.mean - middle).abs()
    if off_centre.nunique() < 3 or p.sd.nunique() < 3:
        return "too few distinct items to say where the scale is least precise."
    r = float(np.corrcoef(off_centre, p.sd)[0, 1])
    if r <= -0.2:
        return (
            f"items in the middle of the scale spread most (r = {num(r, 2)} between sd and "
            "distance from the middle), so system differences that hinge on mid-scale items "
            "are the least trustworthy."
        )
    if r >= 0.2:
        return (
            f"items near the ends of the scale spread most (r = {num(r, 2)} between sd and "
            "distance from the middle), as when careless raters pull clear-cut items toward "
            "the middle, so even the items every system should get right carry noise."
        )
    return (
        f"the spread hardly depends on where an item lies on the scale (r = {num(r, 2)} "
        "between sd and distance from the middle), so every item carries about the same noise "
        "into a system comparison."
    )
