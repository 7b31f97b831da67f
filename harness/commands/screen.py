"""`harness screen (STUDY | --judgments FILE.csv --spec SPEC)`: screen the workers of a study.

Thin layer: reads the judgments and the screening context (a long CSV and its spec, or a study
in the store with the spec its instrument was frozen from), runs the heuristics under the
spec's policy, and prints the per-worker table (or JSON); with ``--impact``, the figures after
screening with every subset of the heuristics instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness.commands.options import db_option
from harness.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from harness.screening import ScreeningContext


@click.command("screen")
@click.argument("study", required=False)
@click.option(
    "--judgments",
    "judgments_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A long judgments CSV (item_id, worker_id, value, ...); needs --spec.",
)
@click.option(
    "--spec",
    "spec_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The task spec of the CSV: its scale, items and screening policy.",
)
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--details", is_flag=True, help="Every field of every heuristic (a wide table).")
@click.option("--only", help="Comma-separated heuristics (keys or codes: H3,H8).")
@click.option(
    "--impact",
    is_flag=True,
    help="Print alpha (and rho) after screening with every subset of the heuristics.",
)
@click.option(
    "--system",
    "systems",
    multiple=True,
    metavar="NAME=FILE|FILE|DIR",
    help="With --impact: system predictions (item_id, score; or WS353's row, word1, word2, "
    "score); repeatable; a directory adds each CSV in it.",
)
def screen(
    study: str | None,
    judgments_path: Path | None,
    spec_path: Path | None,
    db: str | None,
    as_json: bool,
    details: bool,
    only: str | None,
    impact: bool,
    systems: tuple[str, ...],
) -> None:
    """Score every worker on the screening heuristics H1-H13 (and radical/centrist).

    Screen a stored STUDY (by name, in the store given by --db), or a CSV with --judgments and
    --spec. A worker is "flagged" when a heuristic whose spec action is not `report` flags
    them. JSON: one object per worker with worker_id, per heuristic its score, evidence and
    flag (and extra fields), and flagged.

    --impact prints instead, for every subset of the heuristics (those of --only, else those
    the policy names), what is left after removing the workers they flag and Krippendorff's
    alpha next to the unscreened alpha (and each --system's Spearman rho with the item means).
    """
    if study is not None and judgments_path is None and spec_path is None:
        from harness.store.database import open_store

        open_store(db).dispose()  # a missing store is refused before the heavy imports
    import pandas as pd

    from harness.screening import screen_workers
    from harness.screening.inputs import heuristic_names
    from harness.screening.text import compact_lines

    keys = heuristic_names(only)
    if systems and not impact:
        raise click.UsageError("--system needs --impact")
    judgments, context = _load(study, judgments_path, spec_path, db)
    if impact:
        _print_impact(judgments, context, keys, _systems(systems), as_json)
        return
    report = screen_workers(judgments, context, keys)
    if as_json:
        click.echo(json.dumps(report.records(), indent=2))
        return
    if details:
        table = report.table()
        table.columns = [".".join(part for part in column if part) for column in table.columns]
        with pd.option_context("display.max_rows", None, "display.width", 10_000):
            click.echo(table.to_string(float_format=lambda v: f"{v:.3g}"))
    else:
        for line in compact_lines(report):
            click.echo(line)
    click.echo(f"\n{report.summary()}")


def _load(
    study: str | None, judgments_path: Path | None, spec_path: Path | None, db: str | None
) -> tuple[pd.DataFrame, ScreeningContext]:
    """The judgments and screening context, from the store or from a CSV and its spec."""
    from harness.screening.inputs import file_inputs, stored_inputs

    if study is not None:
        if judgments_path is not None or spec_path is not None:
            raise click.UsageError("give a STUDY or --judgments with --spec, not both")
        return stored_inputs(study, db)
    if judgments_path is None or spec_path is None:
        raise click.UsageError("give a STUDY name, or both --judgments FILE.csv and --spec SPEC")
    return file_inputs(judgments_path, spec_path)


def _systems(refs: tuple[str, ...]) -> dict[str, pd.Series]:
    """Systems from NAME=FILE, FILE or DIR references (WS353 system files mapped to items)."""
    from harness.datasets import load_ws353
    from harness.datasets.systems import read_system_refs

    scores, _sources = read_system_refs(refs, lambda: load_ws353().items)
    return scores


def _print_impact(
    judgments: pd.DataFrame,
    context: ScreeningContext,
    keys: list[str] | None,
    systems: dict[str, pd.Series],
    as_json: bool,
) -> None:
    import pandas as pd

    from harness.screening import resolve
    from harness.screening.impact import screening_impact
    from harness.screening.report import json_value

    if keys is not None and any(resolve(k) in ("radical", "centrist") for k in keys):
        raise InputError("--impact: radical and centrist only report; they screen nobody")
    try:
        table = screening_impact(judgments, context, systems, heuristics=keys)
    except ValueError as exc:  # too many heuristics for 2^k subsets
        raise InputError(f"--impact: {exc} with --only") from None
    if as_json:
        records: list[dict[str, Any]] = [
            {str(k): json_value(v) for k, v in row.items()} | {"subset": list(row["subset"])}
            for row in table.to_dict(orient="records")
        ]
        click.echo(json.dumps(records, indent=2))
        return
    with pd.option_context("display.max_rows", None, "display.width", 250):
        click.echo(_impact_text(table).to_string(index=False))
    click.echo(
        "\nEvery row removes the workers its heuristics flag ('policy': the spec's own set);\n"
        "'none' is all judgments. Each figure is followed by its change against 'none'.\n"
        "Removing workers after the fact raises agreement: report both figures."
    )


def _impact_text(table: pd.DataFrame) -> pd.DataFrame:
    """The impact table narrow enough for a terminal: one column per figure, each value with
    its change against no screening ("0.559 +0.063")."""
    import pandas as pd

    def with_change(value: str, change: str) -> pd.Series:
        return pd.Series(
            [f"{v:.3f} {c:+.3f}" for v, c in zip(table[value], table[change], strict=True)],
            index=table.index,
        )

    shown = pd.DataFrame(
        {
            "heuristics": table["label"],
            "policy": ["yes" if p else "" for p in table["policy"]],
            "removed": table["workers_removed"],
            "judgments": table["judgments_kept"],
            "items": table["items_kept"],
            "alpha": with_change("alpha", "alpha_change"),
        }
    )
    for column in table.columns:
        if str(column).startswith("rho:"):
            name = str(column).removeprefix("rho:")
            shown[f"rho {name}"] = with_change(str(column), f"rho_change:{name}")
    return shown
