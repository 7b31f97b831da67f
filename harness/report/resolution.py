"""The report's resolution section: the cumulative resolution as the headline, then agreement
per distance band with counts, the fitted psychometric curve and the cumulative curve's table
(docs/characterize.md)."""

from __future__ import annotations

import numpy as np

from harness.characterize import Characterization
from harness.characterize.item_pairs import (
    PUBLISHED_ABOVE,
    PUBLISHED_PAIRS,
    PUBLISHED_THRESHOLD,
)
from harness.characterize.resolution import Resolution
from harness.report import plots
from harness.report.document import Block, Plot, Section, Table
from harness.report.numbers import count, num, share


def resolution_section(c: Characterization) -> Section:
    res = c.resolution
    if res is None:
        return Section(
            "Resolution",
            "Without a pair-comparison study the smallest difference this instrument can order "
            "is unknown, so no threshold below which system disagreements are noise can be "
            "given.",
            ["No resolution study was given (--resolution)."],
            anchor="resolution",
        )
    t = res.threshold_95
    every = 10
    thresholds = res.curve["threshold"].to_numpy(dtype=float)
    around = np.zeros(len(thresholds), dtype=bool)
    if t is not None:
        around = np.abs(thresholds - t) <= 3 * res.step + 1e-9
    keep = (np.arange(len(thresholds)) % every == 0) | around
    curve_rows = [
        [num(row.threshold, 2), share(row.agreement), count(row.n)]
        for row in res.curve[keep].itertuples()
    ]
    return Section(
        "Resolution",
        resolution_meaning(res),
        [
            *resolution_blocks(res, c.original_instrument.name),
            Table(
                ["t", "cumulative agreement", "pairs of pairs"],
                curve_rows,
                caption=f"The cumulative curve at every {num(every * res.step, 2)} and around "
                f"the resolution (JSON: resolution.curve at every {num(res.step, 2)}).",
            ),
        ],
        anchor="resolution",
    )


def resolution_meaning(res: Resolution) -> str:
    """The section's one sentence: what the resolution means for comparing systems."""
    t = res.threshold_95
    if t is None:
        return (
            f"The crowd never orders pairs like the original {res.target:.0%} of the time, so "
            "no difference on this instrument is safely orderable."
        )
    return (
        f"The crowd orders the pairs of pairs at least {num(t, 2)} apart in the original like "
        f"the original {res.target:.0%} of the time: a system that orders pairs closer than "
        "that differently from the benchmark is not measurably wrong. This figure pools every "
        "pair of pairs above t and so depends on the design; the fitted curve below says where "
        f"single pairs of pairs are ordered {res.target:.0%} of the time."
    )


def resolution_blocks(res: Resolution, original: str) -> list[Block]:
    """The figures, the per-band table, the psychometric and the cumulative plots."""
    return [
        Table(["figure", "value"], _figures(res, original)),
        _bands_table(res),
        Plot(
            "psychometric",
            plots.psychometric_curve(res),
            "Agreement with the original per distance band (points, larger for more pairs of "
            "pairs), the logistic curve fitted to every pair of pairs, and where it reaches "
            f"{res.target:.0%} (shaded: its bootstrap interval).",
        ),
        Plot(
            "resolution",
            plots.agreement_curve(res),
            "Cumulative agreement with the original against the threshold t (left axis); "
            "dotted: the number of pairs of pairs with distance >= t (right axis).",
        ),
    ]


def _figures(res: Resolution, original: str) -> list[list[str]]:
    equal = float((res.decisions["decision"] == 0).mean())
    curve = res.psychometric
    rows = [
        ["pairs of pairs", f"{len(res.decisions):,}"],
        ["agreement over all pairs of pairs (t = 0)", share(res.agreement_all)],
        ['decided "equally similar" (t = 0)', share(equal)],
        ["mean share of votes for the decision", share(res.decisions["share"].mean())],
        [
            f"resolution: smallest t with cumulative agreement >= {res.target:.0%} "
            f"(n >= {res.min_pairs}) [95% bootstrap interval over the pairs of pairs]",
            resolution_figure(res),
        ],
        [f"cumulative agreement stays >= {res.target:.0%} above it", "yes" if res.stable else "no"],
        [
            f"distance where the fitted curve reaches {res.target:.0%} [95% bootstrap interval]",
            _curve_figure(res),
        ],
        [
            "item pairs of the original at or above the resolution (orderable)",
            "n/a"
            if res.item_pairs_above is None
            else f"{res.item_pairs_above:,} of {res.n_item_pairs:,} "
            f"({share(res.item_pairs_above / res.n_item_pairs)})",
        ],
        [
            "item pairs below it",
            "n/a"
            if res.item_pairs_below is None
            else f"{res.item_pairs_below:,} ({share(res.item_pairs_below / res.n_item_pairs)})",
        ],
    ]
    if curve is not None and curve.failed:
        rows.append(
            [
                "bootstrap resamples whose fit failed (left out)",
                f"{curve.failed} of {curve.resamples}",
            ]
        )
    if original.startswith("WS353"):
        rows.append(
            [
                "published for WS353 (13 raters per pair of pairs)",
                "25% of pairs of pairs not decided like the original at t = 0 (1 - agreement; "
                f'"equally similar" counts as not agreeing); resolution '
                f"{num(PUBLISHED_THRESHOLD, 1)}; "
                f"{PUBLISHED_ABOVE:,} of {PUBLISHED_PAIRS:,} item pairs above it (351 items: WS353 "
                "without (tiger, tiger) and (money, bank))",
            ]
        )
    return rows


def resolution_figure(res: Resolution) -> str:
    """The cumulative resolution with its 95% bootstrap interval, e.g. ``1.70 [1.20, 2.40]``."""
    if res.threshold_95 is None:
        return "not reached"
    text = with_interval(res.threshold_95, res.threshold_ci)
    if res.threshold_unreached:
        text += f" ({res.threshold_unreached} resamples never reach {res.target:.0%})"
    return text


def _curve_figure(res: Resolution) -> str:
    curve = res.psychometric
    if curve is None:
        return "no fit (agreement does not rise with distance, or is separable by it)"
    text = with_interval(curve.d_target, curve.ci)
    if curve.extrapolated:
        text += f" (beyond the largest distance, {num(curve.max_distance, 2)})"
    return text


def with_interval(x: float, ci: tuple[float, float] | None) -> str:
    """A distance with its 95% interval to 2 decimals, e.g. ``1.70 [1.20, 2.40]``."""
    text = num(x, 2)
    return text if ci is None else f"{text} [{num(ci[0], 2)}, {num(ci[1], 2)}]"


def _bands_table(res: Resolution) -> Table:
    curve = res.psychometric
    b = res.bands
    low, high = b["low"].to_numpy(dtype=float), b["high"].to_numpy(dtype=float)
    fitted = None if curve is None else curve.at((low + high) / 2)
    rows = []
    for k in range(len(b)):
        n = int(b["n"].iloc[k])
        rows.append(
            [
                f"{num(low[k], 1)}-{num(high[k], 1)}",
                count(n),
                count(b["agree"].iloc[k]),
                count(b["equal"].iloc[k]),
                count(b["reversed"].iloc[k]),
                "-" if n == 0 else share(b["agreement"].iloc[k]),
                "" if fitted is None else share(fitted[k]),
            ]
        )
    return Table(
        [
            "distance",
            "pairs of pairs",
            "agree",
            "equally similar",
            "reversed",
            "agreement",
            "fitted (mid-band)",
        ],
        rows,
        caption="Agreement per distance band [low, high): the crowd's decisions that order the "
        "two pairs like the original, call them equally similar, or order them the other way "
        "(or order two pairs the original scores alike).",
    )
