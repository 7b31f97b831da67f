"""The report's sections that compare: reproducibility, systems, MRDS, screening."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.characterize import Characterization, Reproducibility
from harness.characterize.systems import InstrumentSystems
from harness.report import plots
from harness.report.document import Block, Plot, Section, Table
from harness.report.numbers import change_percent, count, interval, num, pvalue, signed
from harness.spec.heuristics import BY_KEY
from harness.stats.mrds import formula_table, mrds_table
from harness.stats.spearman_difference import spearman_mrds


def reproducibility_section(c: Characterization) -> Section:
    r = c.reproducibility
    new, orig = c.new_instrument.name, c.original_instrument.name
    o = r.overlap
    blocks: list[Block] = [
        f"Shared items: {o.n_shared:,} ({new} has {o.n_new:,} items with two or more values, "
        f"{orig} has {o.n_original:,}). Every figure below is on the shared items.",
        Table(["figure", *_repro_columns(c)], _repro_rows(c)),
    ]
    for column, what in (("mean_change", "mean"), ("sd_change", "sd")):
        rows = []
        for kind, frame in (("most", r.most_changed(column)), ("least", r.least_changed(column))):
            for item, row in frame.iterrows():
                rows.append(
                    [
                        kind,
                        c.original_instrument.label(str(item)),
                        num(row[f"{what}_original"], 2),
                        num(row[f"{what}_new"], 2),
                        signed(row[column], 2),
                    ]
                )
        blocks.append(
            Table(
                ["changed", "item", orig, new, "change"],
                rows,
                caption=f"Items whose {what} changed most and least (new - original).",
            )
        )
    blocks.append(
        Plot(
            "means",
            plots.versus(r, "mean", new_name=new, original_name=orig, label="mean"),
            "Item means, new against original (dashed: equal).",
            half=True,
        )
    )
    blocks.append(
        Plot(
            "sds",
            plots.versus(r, "sd", new_name=new, original_name=orig, label="sd"),
            "Item sample sds (ddof = 1), new against original (dashed: equal).",
            half=True,
        )
    )
    meaning = (
        f"The new instrument orders the shared items like the original with Spearman rho "
        f"{num(r.spearman_means)} (not 1), so a system's rho can change between the two "
        "instruments for reasons that have nothing to do with the system; the item sds "
        f"correlate at r = {num(r.pearson_sds)}, so which items are hard to judge "
        f"{'reproduces' if r.pearson_sds >= 0.5 else 'does not reproduce well'}."
    )
    return Section("Reproducibility", meaning, blocks, anchor="reproducibility")


def _repro_columns(c: Characterization) -> list[str]:
    cols = ["all judgments"]
    if c.screened is not None:
        cols.append(f"screened ({c.screened.policy})")
    return cols


def _repro_rows(c: Characterization) -> list[list[str]]:
    views: list[Reproducibility] = [c.reproducibility]
    if c.screened is not None:
        views.append(c.screened.reproducibility)
    new, orig = c.new_instrument.name, c.original_instrument.name
    figures: list[tuple[str, Callable[[Reproducibility], str]]] = [
        (
            f"alpha {new} [95% interval]",
            lambda r: f"{num(r.alpha_new.alpha)} {interval(r.alpha_new.ci)}",
        ),
        (
            f"alpha {orig} [95% interval]",
            lambda r: f"{num(r.alpha_original.alpha)} {interval(r.alpha_original.ci)}",
        ),
        ("Spearman rho of item means", lambda r: num(r.spearman_means)),
        ("Pearson r of item means", lambda r: num(r.pearson_means)),
        ("Pearson r of item sds", lambda r: num(r.pearson_sds)),
        (f"mean sd {new} / {orig}", lambda r: f"{num(r.mean_sd_new)} / {num(r.mean_sd_original)}"),
        (f"sd of sds {new} / {orig}", lambda r: f"{num(r.sd_sd_new)} / {num(r.sd_sd_original)}"),
    ]
    return [[label, *[get(v) for v in views]] for label, get in figures]


def systems_section(c: Characterization) -> Section:
    s = c.systems
    if s is None:
        return Section(
            "Systems measured by the instrument",
            "No system predictions were given (--system NAME=FILE), so this report cannot say "
            "which system differences the instrument can detect; the MRDS table below still "
            "bounds them.",
            [],
            anchor="systems",
        )
    names = {"new": c.new_instrument.name, "original": c.original_instrument.name}
    views: dict[str, InstrumentSystems] = {
        names[k]: v for k, v in s.by_instrument.items() if k in names
    }
    if c.screened is not None and c.screened.systems is not None:
        views = {
            names["new"]: s.by_instrument["new"],
            f"{names['new']} (screened)": c.screened.systems.by_instrument["new"],
            names["original"]: s.by_instrument["original"],
        }
    blocks: list[Block] = [
        Table(
            ["system", *[f"rho vs {k}" for k in views]],
            [[n, *[num(v.rho[n]) for v in views.values()]] for n in s.names],
            caption="Spearman rho of each system against each instrument's item means.",
        ),
    ]
    for name, v in views.items():
        blocks.append(
            Table(
                ["system", "raters", "min", "max", "mean", "sd"],
                [
                    [
                        str(n),
                        count(r["n_raters"]),
                        num(r["min"]),
                        num(r["max"]),
                        num(r["mean"]),
                        num(r["sd"]),
                    ]
                    for n, r in v.per_rater_stats.iterrows()
                ],
                caption=f"{name}: per-rater rho (each system against each rater's own values; "
                "sd with ddof = 1).",
            )
        )
        blocks.append(
            Table(
                [
                    "A",
                    "B",
                    "rho B - rho A",
                    "se",
                    "r_AB",
                    "needed for p < 0.05",
                    "z",
                    "p",
                    "Steiger z (Pearson's test)",
                    "Steiger p",
                    "told apart?",
                ],
                [
                    [
                        str(a.a),
                        str(a.b),
                        signed(a.difference),
                        num(a.se),
                        num(a.r_ab),
                        num(a.mrds),
                        num(a.z, 2),
                        pvalue(a.p),
                        num(st.z, 2),
                        pvalue(st.p),
                        "yes" if a.distinguishable else "no",
                    ]
                    for a, st in zip(v.verdicts.itertuples(), v.steiger.itertuples(), strict=True)
                ],
                caption=f"{name}: every two systems on n = {v.n_items} items. z and p: harness's "
                "test of two Spearman rhos (Fisher z with the rhos' own variance, which holds "
                "its 5% size; methods.md section 6); se: the standard error of the difference; "
                "needed: the smallest difference this pair's variance lets reach p < 0.05. "
                "Steiger's Z (1980, pooled r; given r_AB, the rho between the two systems) is "
                "made for Pearson's r and shown to compare with published figures: on Spearman "
                "rhos it rejects too often. Both z are signed like rho B - rho A. Told apart: "
                "p < 0.05.",
            )
        )
        blocks.append(
            Table(
                [
                    "A",
                    "B",
                    "mean rho B - A",
                    "paired t (df)",
                    "paired p",
                    "Student t (df)",
                    "Student p",
                ],
                [
                    [
                        str(t.a),
                        str(t.b),
                        signed(t.mean_difference),
                        f"{num(t.t_paired, 2)} ({count(t.df_paired)})",
                        pvalue(t.p_paired),
                        f"{num(t.t_student, 2)} ({count(t.df_student)})",
                        pvalue(t.p_student),
                    ]
                    for t in v.t_tests.itertuples()
                ],
                caption=f"{name}: two-tailed t-tests over the per-rater rhos. Paired: over the "
                "raters both systems have a rho for (the raters are the same people, so this "
                "is the test that fits). Student: unpaired, equal variances, the two systems' "
                "rhos as independent samples (the test of the WS353 study's Table 3), shown to "
                "compare with it.",
            )
        )
        thresholds = sorted(v.distance["threshold"].unique())
        blocks.append(
            Table(
                ["system", *[f"t = {num(t, 2)}" for t in thresholds]],
                [
                    [
                        n,
                        *[
                            f"{num(r.r)} ({count(r.n_pairs)})"
                            for r in v.distance[v.distance["system"] == n].itertuples()
                        ],
                    ]
                    for n in s.names
                ],
                caption=f"{name}: distance correlation r (item pairs with instrument distance "
                ">= t, count in brackets).",
            )
        )
    per_rater = {k: v.per_rater for k, v in views.items()}
    blocks.append(
        Plot(
            "per_rater_rho",
            plots.per_rater_rho(per_rater),
            "Per-rater rho: each point is one system scored against one rater's values.",
        )
    )
    return Section(
        "Systems measured by the instrument", closest_pair_verdict(c), blocks, anchor="systems"
    )


def closest_pair(c: Characterization) -> tuple[str, str] | None:
    """The two systems whose rhos against the original are closest (None: fewer than two)."""
    if c.systems is None or len(c.systems.names) < 2:
        return None
    original = c.systems.by_instrument["original"].verdicts
    pair = original.iloc[int(original["difference"].abs().to_numpy().argmin())]
    return str(pair["a"]), str(pair["b"])


def pair_verdicts(c: Characterization) -> list[tuple[str, str]]:
    """(instrument, sentence) for the closest pair on each instrument: told apart or not."""
    pair = closest_pair(c)
    if pair is None or c.systems is None:
        return []
    a, b = pair
    out = []
    instruments = [("new", c.new_instrument.name), ("original", c.original_instrument.name)]
    if c.self_comparison:  # the same instrument twice: say it once
        instruments = instruments[1:]
    for key, name in instruments:
        v = c.systems.by_instrument[key].verdicts
        row = v[(v["a"] == a) & (v["b"] == b)].iloc[0]
        t = c.systems.by_instrument[key].t_tests
        test = t[(t["a"] == a) & (t["b"] == b)].iloc[0]
        rho = c.systems.by_instrument[key].rho
        out.append(
            (
                name,
                f"{'yes' if row['distinguishable'] else 'no'}: rho {num(rho[a])} vs {num(rho[b])} "
                f"(difference {signed(row['difference'])}, se {num(row['se'])}; this pair "
                f"needs {num(row['mrds'])} for p < 0.05, correlating r_AB = {num(row['r_ab'])}), "
                f"p = {pvalue(row['p'])}; over the per-rater rhos, paired t-test "
                f"({int(test['n_raters'])} raters) p = {pvalue(row['paired_t_p'])}, Student's "
                f"unpaired t-test p = {pvalue(row['student_t_p'])}",
            )
        )
    return out


def closest_pair_verdict(c: Characterization) -> str:
    """Whether the instrument tells apart the two systems closest in rho on the original."""
    pair = closest_pair(c)
    if pair is None:
        return "Fewer than two systems were given, so no two can be compared."
    parts = [f"on {name}, {sentence}" for name, sentence in pair_verdicts(c)]
    return (
        f"Can {'this instrument' if c.self_comparison else 'these instruments'} tell "
        f"{pair[0]} from {pair[1]} (the two systems closest in rho)? "
        + "; ".join(parts)
        + ". The p is harness's test of two Spearman rhos (methods.md section 6): a "
        "difference below what the pair needs cannot reach p < 0.05 on this many items."
    )


def mrds_section(c: Characterization) -> Section:
    table = c.mrds
    n = c.reproducibility.overlap.n_shared
    rs, p0s = [float(r) for r in table.index], [float(p) for p in table.columns]
    formula = formula_table(n, rs, p0s)
    steiger = mrds_table(n, rs, p0s)
    rows = [
        [
            num(r, 1),
            *[num(table.loc[r, p0]) for p0 in table.columns],
            *[num(steiger.loc[r, p0]) for p0 in table.columns],
            *[num(formula.loc[r, p0]) for p0 in table.columns],
        ]
        for r in table.index
    ]
    return Section(
        "Minimum required difference for significance (MRDS)",
        f"For planning: with {n} items, two systems whose Spearman rhos against this instrument "
        f"differ by less than about {num(spearman_mrds(n, 0.7, 0.05))} (at r = 0.7, p0 = 0.05, "
        "and the two systems correlating with each other as much as with the instrument) "
        "cannot be told apart. Systems that correlate more with each other need less: for two "
        "given systems the verdict above uses their own variance.",
        [
            Table(
                [
                    "r",
                    *[f"Spearman, p0 = {p0:g}" for p0 in table.columns],
                    *[f"Steiger (Pearson r), p0 = {p0:g}" for p0 in table.columns],
                    *[f"formula, p0 = {p0:g}" for p0 in table.columns],
                ],
                rows,
                caption=f"Spearman: the smallest sigma with which harness's test of two Spearman "
                f"rhos gives p < p0 (two-tailed) on n = {n} items, at rhos r and r + sigma and "
                "r_AB = r, for normal scores: the figure harness uses. Steiger: the same for "
                "Steiger's test, which is made for Pearson's r (on Spearman rhos it is too "
                "small). Formula: z(1 - p0) sqrt(2 (1 - r) / n), one-tailed, the closed form "
                "published MRDS tables follow at n = 353; shown only to compare with them.",
            ),
        ],
        anchor="mrds",
    )


def screening_section(c: Characterization) -> Section:
    sc = c.screened
    if sc is None:
        return Section(
            "Screening impact",
            "No screened set was given, so every figure above is for all judgments; whether "
            "screening would change a system comparison is not shown.",
            [
                "Give --screen SPEC (screen with the spec's policy, and list the impact of every "
                "subset of its heuristics), --screened FILE (the screened long table) or "
                "--flagged FILE (worker ids to remove) to show every figure for all judgments and "
                "the screened set side by side."
            ],
            anchor="screening",
        )
    rows = []
    # (label, all, screened, relative): a relative change only for a magnitude (an sd); for a
    # correlation, alpha or a share it would mislead (a rho of 0.05 moving to 0.07 is "+40%")
    pairs = [
        ("alpha", c.new.repeatability.alpha, sc.new.repeatability.alpha, False),
        ("mean sd", c.new.precision.mean_sd, sc.new.precision.mean_sd, True),
        (
            "item pairs not separable (standard error)",
            c.new.rank_stability.share_inseparable,
            sc.new.rank_stability.share_inseparable,
            False,
        ),
        (
            "Spearman rho of means vs original",
            c.reproducibility.spearman_means,
            sc.reproducibility.spearman_means,
            False,
        ),
        (
            "Pearson r of sds vs original",
            c.reproducibility.pearson_sds,
            sc.reproducibility.pearson_sds,
            False,
        ),
    ]
    if c.systems is not None and sc.systems is not None:
        for name in c.systems.names:
            pairs.append(
                (
                    f"rho of {name}",
                    c.systems.by_instrument["new"].rho[name],
                    sc.systems.by_instrument["new"].rho[name],
                    False,
                )
            )
    for label, everything, screened, relative in pairs:
        rows.append(
            [
                label,
                num(everything),
                num(screened),
                signed(screened - everything),
                change_percent(screened, everything) if relative else "-",
            ]
        )
    removed = len(sc.workers_removed)
    body: list[Block] = [
        Table(
            ["figure", "all judgments", f"screened ({sc.policy})", "difference", "relative change"],
            rows,
            caption="Difference: screened - all judgments. Relative change only for the mean "
            "sd: for alpha, a correlation or a share near zero a percentage would mislead.",
        ),
        "Workers removed: " + (", ".join(sc.workers_removed) or "none") + ".",
    ]
    if sc.impact is not None:
        body.extend(_impact_body(sc.impact))
    return Section(
        "Screening impact",
        f"Screening ({sc.policy}) removed {removed} worker(s) and moved alpha from "
        f"{num(c.new.repeatability.alpha)} to {num(sc.new.repeatability.alpha)}; a system "
        "comparison that changes between the two columns depends on the screening policy, "
        "not only on the systems.",
        body,
        anchor="screening",
    )


IMPACT_ROWS_SHOWN = 32


def _impact_body(impact: pd.DataFrame) -> list[Block]:
    """The impact of every subset of the heuristics (all rows up to 32, else the telling ones)."""
    shown = impact
    note = f"All {len(impact)} subsets of the heuristics are listed."
    if len(impact) > IMPACT_ROWS_SHOWN:
        keep = (impact["size"] <= 1) | impact["policy"] | (impact["size"] == impact["size"].max())
        shown = impact[keep]
        note = (
            f"{len(shown)} of the {len(impact)} subsets are listed (none, each heuristic alone, "
            "the policy's, all together); report.json has every one under screened.impact."
        )
    systems = [col.partition(":")[2] for col in impact.columns if col.startswith("rho:")]
    header = [
        "heuristics (as the spec names them)",
        "workers removed",
        "judgments kept",
        "alpha",
        "alpha difference",
    ]
    header += [f"rho {name}" for name in systems]
    rows = []
    for _, row in shown.iterrows():
        label = (" + ".join(row["subset"]) or "none") + (" (policy)" if row["policy"] else "")
        cells = [
            label,
            count(row["workers_removed"]),
            count(row["judgments_kept"]),
            num(row["alpha"]),
            signed(row["alpha_change"]),
        ]
        cells += [num(row[f"rho:{name}"]) for name in systems]
        rows.append(cells)
    used = sorted({k for subset in impact["subset"] for k in subset}, key=_catalogue_order)
    legend = Table(
        ["heuristic", "code", "flags a worker when"],
        [[BY_KEY[k].key, BY_KEY[k].code, BY_KEY[k].meaning] for k in used if k in BY_KEY],
        caption="Legend: the heuristics above, by the names a task spec's screening section "
        "uses, with their codes (docs/methods.md section 4).",
    )
    return [
        "Alpha (and each system's Spearman rho with the item means) after removing the workers "
        "that each subset of the heuristics flags. " + note,
        Table(header, rows),
        legend,
    ]


def _catalogue_order(key: str) -> int:
    keys = list(BY_KEY)
    return keys.index(key) if key in BY_KEY else len(keys)
