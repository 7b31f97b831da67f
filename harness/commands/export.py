"""`harness export STUDY`: a study's judgments as CSV, JSON lines or Parquet, to share."""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.options import db_option
from harness.errors import InputError


@click.command("export")
@click.argument("study")
@db_option
@click.option(
    "--format",
    "form",
    type=click.Choice(["csv", "jsonl", "parquet"]),
    default="csv",
    show_default=True,
    help="File format (parquet needs pyarrow: harness[parquet]).",
)
@click.option(
    "--columns",
    type=click.Choice(["harness", "crowdkit"]),
    default="harness",
    show_default=True,
    help="harness: the long table with timings; crowdkit: task, worker, label.",
)
@click.option(
    "--pseudonymize",
    is_flag=True,
    help="Replace worker, assignment and HIT ids by keyed hashes (key kept in the store).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Where to write (default: STUDY-judgments.FORMAT here).",
)
@click.option("--overwrite", is_flag=True, help="Replace --out if it exists.")
def export(
    study: str,
    db: str | None,
    form: str,
    columns: str,
    pseudonymize: bool,
    out: Path | None,
    overwrite: bool,
) -> None:
    """Write STUDY's judgments to a file: the long table (item, worker, value, timings, ...)
    or crowd-kit's task, worker, label columns, optionally with every platform id replaced
    by a keyed pseudonym so that a shared data set carries none."""
    from harness.store.database import opened_store

    path = out or Path(f"{study}-judgments.{form}")
    if path.exists() and not overwrite:
        raise InputError(f"export: {path} exists; give another --out or add --overwrite")
    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.store.export import (
            ExportColumns,
            ExportFormat,
            export_table,
            pseudonymized,
            shared_judgments,
            write_export,
        )

        judgments, key = shared_judgments(engine, study, pseudonymize=pseudonymize)
    if judgments.empty:
        raise InputError(f"export: study {study!r} has no judgments yet (run sync first)")
    if key is not None:
        judgments = pseudonymized(judgments, key)
    table = export_table(judgments, ExportColumns(columns))
    write_export(table, path, ExportFormat(form))
    hidden = " (platform ids pseudonymized)" if key is not None else ""
    click.echo(f"{study}: {len(table):,} rows written to {path}{hidden}")
