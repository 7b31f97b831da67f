"""`harness compare-arms STUDY`: which arm of a study with arms measures better (docs/arms.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.commands.options import db_option, resamples_option, seed_option
from harness.commands.output import finite
from harness.money import money

if TYPE_CHECKING:  # --help imports no statistics
    from harness.characterize.arms import ArmComparison


@click.command("compare-arms")
@click.argument("study")
@db_option
@resamples_option("Bootstrap resamples of the items (each arm's interval; the bootstrap methods).")
@seed_option
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 0.999),
    default=0.95,
    show_default=True,
    help="Level of every interval.",
)
@click.option(
    "--power",
    type=click.FloatRange(0.5, 0.99),
    default=0.8,
    show_default=True,
    help="Power of the raters-per-item figure.",
)
@click.option(
    "--reference",
    help="A published original to reproduce: ws353[:DIR] (its means) or a CSV of item_id, "
    "value; says which arm reproduces it best.",
)
@click.option(
    "--difference",
    "method",
    type=click.Choice(["relabel", "items", "items-workers"]),
    default="relabel",
    show_default=True,
    help="Interval of a difference: relabel (the relabeling test of workers, calibrated), or a "
    "bootstrap of items (too narrow when workers have biases) or of items and workers (too "
    "wide); docs/arms.md.",
)
@click.option(
    "--relabelings",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Relabelings of workers per difference (--difference relabel).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def compare_arms_command(
    study: str,
    db: str | None,
    resamples: int,
    seed: int,
    confidence: float,
    power: float,
    reference: str | None,
    method: str,
    relabelings: int,
    as_json: bool,
) -> None:
    """Compare STUDY's arms: alpha per arm, differences with intervals, a verdict, raters needed.

    Every arm against the first (the base), on the items every arm rated, without the workers
    screening excluded; definitions in docs/arms.md.
    """
    from harness.errors import InputError
    from harness.store.database import opened_store

    if resamples < 1:
        raise InputError("--bootstrap: comparing arms needs at least 1 resample")
    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.characterize.arm_inputs import compare_stored, read_arms
        from harness.store import find_study, session_scope

        with session_scope(engine) as session:
            stored = read_arms(session, find_study(session, study))
    result = compare_stored(
        stored,
        reference=_reference(reference) if reference else None,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        power=power,
        difference=method,
        relabelings=relabelings,
    )
    if as_json:
        from harness.characterize.arm_figures import arms_record

        record = arms_record(result) | {
            "study": stored.data.study,
            "fees_of": stored.platform,
            "currency": stored.currency,
        }
        click.echo(json.dumps(finite(record), allow_nan=False))
        return
    for line in _lines(stored.data.study, result, reference, stored.platform, stored.currency):
        click.echo(line)


def _reference(ref: str) -> dict[str, float]:
    """Item id -> published value: ``ws353[:DIR]`` (the means) or a CSV of item_id, value."""
    import pandas as pd

    from harness.characterize.inputs import is_dataset
    from harness.datasets import load_ws353
    from harness.errors import InputError

    if is_dataset(ref):
        items = load_ws353(ref.partition(":")[2] or None).items
        means = items["published_mean"].astype(float)
        return dict(zip(items["item_id"].astype(str), means, strict=True))
    path = Path(ref)
    if not path.is_file():
        raise InputError(f"--reference {ref}: no such file (or ws353[:DIR])")
    table = pd.read_csv(path)
    missing = [c for c in ("item_id", "value") if c not in table.columns]
    if missing:
        raise InputError(f"--reference {ref}: missing column(s) {', '.join(missing)}")
    return dict(zip(table["item_id"].astype(str), table["value"].astype(float), strict=True))


def _lines(
    study: str, r: ArmComparison, reference: str | None, fees_of: str, currency: str
) -> list[str]:
    from harness.characterize.arm_figures import (
        CHECKED,
        controls_phrase,
        percent,
        raters_needed_phrase,
    )
    from harness.characterize.arms import DifferenceMethod

    level = int(round(100 * r.confidence))
    first = r.arms[0]
    intervals = {
        DifferenceMethod.RELABEL: f"each arm's from {r.resamples} resamples of items, "
        f"differences from {r.relabelings} relabelings of workers",
        DifferenceMethod.ITEMS: f"from {r.resamples} resamples of items",
        DifferenceMethod.ITEMS_WORKERS: f"from {r.resamples} resamples of items, workers "
        "reweighted",
    }[r.difference_method]
    out = [
        f"study {study}: {len(r.arms)} arms, {r.level} alpha, {first.items} items compared; "
        f"{level}% intervals {intervals}; seed {r.seed}",
        f"  {'arm':<14}{'workers':>8}{'raters':>8}  {'alpha [' + str(level) + '%]':<22}"
        f"{'item sd':>8}{'s/item':>8}{'screened':>10}{'cost/reliable mean':>20}",
    ]
    for a in r.arms:
        seconds = "-" if a.seconds_per_item is None else f"{a.seconds_per_item:.1f}"
        interval = f"{a.alpha:.2f} [{a.ci_low:.2f}, {a.ci_high:.2f}]"
        cost = "-" if a.cost_reliable is None else money(a.cost_reliable, currency, 3)
        out.append(
            f"  {a.arm:<14}{a.workers:>8}{a.raters_per_item:>8.1f}  {interval:<22}"
            f"{a.item_sd:>8.2f}{seconds:>8}{percent(a.screened_share):>10}{cost:>20}"
        )
    out.append(
        f"  (cost/reliable mean: rewards and {fees_of}'s fees of an item mean of reliability 0.8)"
    )
    out.append(f"against {first.arm} (the base):")
    for d in r.differences:
        tested = "" if d.p_value is None else f" (relabeling test p={d.p_value:.3f})"
        out += [
            f"  {d.verdict}{tested}",
            f"    item means agree: Spearman rho {d.rho:.2f} [{d.rho_low:.2f}, {d.rho_high:.2f}]",
            f"    to tell them apart at this difference with power {r.power:.0%}: "
            f"{raters_needed_phrase(d)}",
        ]
    if any(c.checks for c in r.controls):
        out.append(f"controls passed ({CHECKED}; every worker, before screening):")
        out += [f"  {c.arm}: {controls_phrase(c, first.arm)}" for c in r.controls]
    elif r.controls:
        out.append(f"controls passed: no checks ({CHECKED}) answered in any arm")
    if r.reference:
        out.append(f"reproducing {reference}: best arm {r.best_reference}")
        for f in r.reference:
            versus = (
                ""
                if f.p_vs_best is None
                else f" (best vs this arm: Williams' t p={f.p_vs_best:.3f})"
            )
            out.append(f"  {f.arm}: rho {f.rho:.2f} [{f.rho_low:.2f}, {f.rho_high:.2f}]{versus}")
    return out
