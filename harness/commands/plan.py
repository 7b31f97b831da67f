"""`harness plan SPEC --pilot REF`: raters per item, judgments, money and time a study needs to
reach its targets, from a pilot's disagreement (`harness.characterize.planning`)."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.commands.options import db_option

if TYPE_CHECKING:
    import pandas as pd

    from harness.characterize.planning import Systems, Targets
    from harness.platform.adaptive_range import AdaptiveRange


@click.command("plan")
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path))
@click.option(
    "--pilot",
    default="ws353",
    show_default=True,
    metavar="STUDY|CSV|ws353",
    help="Whose disagreement to plan from: a stored study, a long judgments CSV, or ws353.",
)
@click.option(
    "--item-se",
    type=click.FloatRange(min=0, min_open=True),
    help="Target standard error of an item's mean [default: a twentieth of the scale].",
)
@click.option(
    "--coverage",
    type=click.FloatRange(0, 1, min_open=True),
    default=1.0,
    show_default=True,
    help="Share of items that must reach --item-se (1: every item, the worst one).",
)
@click.option(
    "--resolution",
    type=click.FloatRange(min=0, min_open=True),
    help="Smallest difference of two items' means to tell apart [default: a tenth of the scale].",
)
@click.option(
    "--alpha-width",
    type=click.FloatRange(0, 2, min_open=True),
    default=0.1,
    show_default=True,
    help="Target width of alpha's 95% interval.",
)
@click.option(
    "--systems",
    nargs=2,
    metavar="A B",
    help="Two systems to tell apart: each a system file (item_id, score) or a bundled WS353 "
    "system (minilm, minilm_frame, char3gram).",
)
@click.option(
    "--difference",
    type=click.FloatRange(-1, 1),
    help="With --systems: the difference of rhos (B - A) to detect [default: the observed one].",
)
@click.option(
    "--power",
    type=click.FloatRange(0.5, 0.99),
    default=0.8,
    show_default=True,
    help="With --systems: the power wanted at p < 0.05.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write each target's figure against raters per item to this PNG.",
)
@db_option
def plan(
    spec_path: Path,
    pilot: str,
    item_se: float | None,
    coverage: float,
    resolution: float | None,
    alpha_width: float,
    systems: tuple[str, str] | None,
    difference: float | None,
    power: float,
    as_json: bool,
    plot: Path | None,
    db: str | None,
) -> None:
    """How many raters per item SPEC's study needs to reach a target precision, and what that
    costs, from a pilot's disagreement.

    Three targets: the standard error of its item means, a resolution (the smallest
    difference of two items' means to tell apart) and the width of alpha's interval. Each
    gets the raters per item, judgments, money (the platform's fees included) and rater time
    it needs. The figures come from the pilot: each item's sd and the reliability of one
    judgment (docs/methods.md, "Planning a study")."""
    from harness.characterize.inputs import read_instrument
    from harness.characterize.planning import Targets, curves, needs, read_pilot
    from harness.money import money
    from harness.platform.adaptive_range import adaptive_range
    from harness.platform.launch_plan import choose_target
    from harness.spec import load_spec

    loaded = load_spec(spec_path)
    platform, target, _ = choose_target(loaded, None)
    instrument = read_instrument(pilot, db)
    piloted = read_pilot(instrument.judgments, instrument.name)
    span = loaded.scale.range or 1.0
    targets = Targets(
        item_se=item_se if item_se is not None else span / 20,
        resolution=resolution if resolution is not None else span / 10,
        alpha_width=alpha_width,
        coverage=coverage,
        systems=_systems(systems, instrument.judgments, difference, power) if systems else None,
    )
    spec = loaded.spec
    items = loaded.n_content_items
    rows = []
    planned = needs(piloted, targets, items, spec.raters_per_item)
    for need in planned:
        row: dict[str, object] = {
            "target": need.target,
            "goal": round(need.goal, 4),
            "raters_per_item": need.raters,
            f"at_{spec.raters_per_item}_raters": (
                None if math.isnan(need.at_spec) else round(need.at_spec, 4)
            ),
            "note": need.note,
            "at_least": need.at_least,
        }
        if need.raters is not None:
            cost = platform.estimate(spec.hit.reward, loaded.n_hits, need.raters)
            judgments = loaded.judgments // spec.raters_per_item * need.raters
            row["judgments"] = judgments
            row["cost"] = str(cost.total)
            if piloted.seconds_per_judgment is not None:
                row["rater_hours"] = round(judgments * piloted.seconds_per_judgment / 3600, 1)
        rows.append(row)
    spec_cost = platform.estimate(spec.hit.reward, loaded.n_hits, spec.raters_per_item).total
    currency = spec.platform.currency
    adaptive = adaptive_range(loaded, platform)
    figures = {
        "spec": str(spec_path),
        "pilot": piloted.name,
        "pilot_alpha": round(piloted.alpha, 4),
        "pilot_raters_per_item": round(piloted.raters_per_item, 2),
        "pilot_item_sd_mean": round(float(piloted.item_sds.mean()), 4),
        "pilot_item_sd_max": round(float(piloted.item_sds.max()), 4),
        "items": items,
        "platform": f"{platform.name} ({target})",
        "spec_raters_per_item": spec.raters_per_item,
        "spec_cost": str(spec_cost),
        "currency": currency,
        "targets": rows,
    }
    if adaptive is not None:
        figures["adaptive"] = _adaptive_figures(adaptive, piloted.seconds_per_judgment)
    if plot is not None:
        most = max([n.raters or 0 for n in planned] + [spec.raters_per_item])
        _plot(curves(piloted, items, coverage, most + 5), targets, plot)
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    click.echo(
        f"pilot {piloted.name}: alpha {piloted.alpha:.3f}, {piloted.raters_per_item:.1f} raters "
        f"per item, item sd mean {piloted.item_sds.mean():.2f} (max {piloted.item_sds.max():.2f})"
    )
    click.echo(
        f"study {spec.study.name}: {items} items on {figures['platform']}, now "
        f"{spec.raters_per_item} raters per item"
        + (" (the adaptive floor)" if adaptive is not None else "")
        + f" for {money(spec_cost, currency)}"
    )
    if adaptive is not None:
        click.echo(_adaptive_line(adaptive, piloted.seconds_per_judgment))
    for row in rows:
        now = row[f"at_{spec.raters_per_item}_raters"]
        sign = ">=" if row["at_least"] else "<="
        shown = "-" if now is None else f"{now:.3f}"
        head = f"  {row['target']} {sign} {row['goal']:g} (now {shown}): "
        if row["raters_per_item"] is None:
            click.echo(head + str(row["note"]))
            continue
        hours = f", about {row['rater_hours']} rater hours" if "rater_hours" in row else ""
        click.echo(
            head + f"{row['raters_per_item']} raters per item, {row['judgments']} judgments, "
            f"{money(Decimal(str(row['cost'])), currency)}{hours}"
        )
    if plot is not None:
        click.echo(f"plot: {plot}")


def _adaptive_figures(adaptive: AdaptiveRange, seconds: float | None) -> dict[str, object]:
    """An adaptive spec's floor and cap: raters per item, judgments, money with fees and, from
    the pilot's time per judgment, rater hours."""
    return {
        name: {
            "raters_per_item": reach.raters,
            "judgments": reach.judgments,
            "cost": str(reach.cost),
            "rater_hours": None if seconds is None else round(reach.judgments * seconds / 3600, 1),
        }
        for name, reach in (("floor", adaptive.floor), ("cap", adaptive.cap))
    }


def _adaptive_line(adaptive: AdaptiveRange, seconds: float | None) -> str:
    from harness.money import money

    lo, hi, c = adaptive.floor, adaptive.cap, adaptive.currency
    hours = ""
    if seconds is not None:
        hours = (
            f", about {lo.judgments * seconds / 3600:.1f} to "
            f"{hi.judgments * seconds / 3600:.1f} rater hours"
        )
    return (
        f"adaptive: {lo.raters} to {hi.raters} raters per item, {lo.judgments} to "
        f"{hi.judgments} judgments, {money(lo.cost, c)} to {money(hi.cost, c)}{hours}; "
        "each item stops at the target or the cap, the study when the budget is spent"
    )


def _systems(
    refs: tuple[str, str], pilot: pd.DataFrame, difference: float | None, power: float
) -> Systems:
    """The two systems' rhos with the pilot's item means, on the items all three share."""
    import pandas as pd
    from scipy import stats

    from harness.characterize.planning import Systems
    from harness.datasets import load_ws353
    from harness.datasets.systems import read_system_refs
    from harness.datasets.ws353_systems import BUNDLED_FILES, bundled_systems_dir
    from harness.errors import InputError

    bundled = {Path(f).stem for f in BUNDLED_FILES}
    files = [str(bundled_systems_dir() / f"{r}.csv") if r in bundled else r for r in refs]
    scores, _ = read_system_refs(files, lambda: load_ws353().items, option="--systems")
    a, b = (scores[Path(f.partition("=")[2] or f).stem] for f in files)
    means = pilot.dropna(subset=["value"]).groupby("item_id")["value"].mean()
    shared = pd.concat([means, a, b], axis=1, join="inner").dropna()
    if len(shared) < 10:
        raise InputError(f"--systems: {len(shared)} items shared with the pilot; need at least 10")
    rho_a = float(stats.spearmanr(shared.iloc[:, 0], shared.iloc[:, 1]).statistic)
    rho_b = float(stats.spearmanr(shared.iloc[:, 0], shared.iloc[:, 2]).statistic)
    if difference is not None:
        rho_b = rho_a + difference
    if not -1 < rho_b < 1:
        raise InputError(f"--difference: rho {rho_a:.3f} + {difference} is not a correlation")
    r_ab = float(stats.spearmanr(shared.iloc[:, 1], shared.iloc[:, 2]).statistic)
    names = (Path(files[0]).stem, Path(files[1]).stem)
    return Systems(names, rho_a, rho_b, r_ab, power=power)


def _plot(table: pd.DataFrame, targets: Targets, path: Path) -> None:
    """Each target's figure against raters per item, the goal as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        ("item_se", "item mean se", targets.item_se),
        ("resolution", "resolution", targets.resolution),
        ("alpha_width", "alpha interval width", targets.alpha_width),
    ]
    figure, axes = plt.subplots(1, 3, figsize=(12, 3.6), constrained_layout=True)
    for axis, (column, label, goal) in zip(axes, panels, strict=True):
        axis.plot(table["raters"], table[column], color="#1f4e79")
        if goal is not None:
            axis.axhline(goal, color="#b03a2e", linestyle="--", label="target")
            axis.legend()
        axis.set_xlabel("raters per item")
        axis.set_ylabel(label)
    figure.savefig(path, dpi=120)
    plt.close(figure)
