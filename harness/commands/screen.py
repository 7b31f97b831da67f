"""`harness screen --judgments FILE.csv --spec SPEC`: screen the workers of a judgments table.

Thin layer: reads the long CSV and the spec, runs the heuristics under the spec's screening
policy, and prints the per-worker table (or JSON).
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from harness.errors import InputError
from harness.judgments import read_judgments
from harness.screening import ScreeningContext, resolve, screen_workers
from harness.spec import load_spec


@click.command("screen")
@click.option(
    "--judgments",
    "judgments_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A long judgments CSV (item_id, worker_id, value, ...).",
)
@click.option(
    "--spec",
    "spec_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The task spec: its scale, items and screening policy.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, one object per worker.")
@click.option("--only", default=None, help="Comma-separated heuristics (keys or codes: H3,H8).")
def screen(judgments_path: Path, spec_path: Path, as_json: bool, only: str | None) -> None:
    """Score every worker on the screening heuristics H1-H10 (and radical/centrist).

    Only the CSV form is accepted for now: screening a stored study comes later. A worker is
    "flagged" when a heuristic whose spec action is not `report` flags them.
    """
    keys = None
    if only is not None:
        names = [n.strip() for n in only.split(",") if n.strip()]
        unknown = [n for n in names if not _known(n)]
        if unknown or not names:
            raise InputError(
                f"--only: unknown heuristic(s) {', '.join(unknown) or '(none given)'}; "
                "expected keys or codes H1-H10 (e.g. H3,consensus_correlation), radical, centrist"
            )
        keys = names
    loaded = load_spec(spec_path)
    judgments = read_judgments(judgments_path)
    report = screen_workers(judgments, ScreeningContext.from_spec(loaded), keys)
    if as_json:
        click.echo(json.dumps(report.records(), indent=2))
        return
    table = report.table()
    table.columns = [".".join(part for part in column if part) for column in table.columns]
    with pd.option_context("display.max_rows", None, "display.width", 200):
        click.echo(table.to_string(float_format=lambda v: f"{v:.3g}"))
    flagged = int(report.flagged.sum())
    click.echo(f"\n{flagged} of {len(report.workers)} workers flagged under the spec's policy.")


def _known(name: str) -> bool:
    try:
        resolve(name)
    except KeyError:
        return False
    return True
