"""`harness import ...`: published instruments into the long table (`ws353`), and work done
elsewhere into the store (`mturk-batch`) or joined to a study's workers (`prolific-export`)."""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.options import db_option
from harness.datasets import load_ws353
from harness.judgments import write_judgments


@click.group("import")
def import_group() -> None:
    """Bring data from elsewhere: a published dataset, MTurk batch results, a Prolific export.

    ws353 writes a long judgments CSV; mturk-batch stores a study; prolific-export joins the
    platform's participant data to a stored study's workers.
    """


@import_group.command("ws353")
@click.argument("directory", type=click.Path(path_type=Path), required=False)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the long judgments CSV.",
)
@click.option(
    "--raters",
    type=click.Choice(["13", "16"]),
    default="13",
    show_default=True,
    help="13: raters 1-13 on all 353 pairs, the instrument the WS353 study characterized and "
    "harness's WS353 everywhere (characterize --original ws353); 16: every rater of the "
    "distribution (ws353-16).",
)
def ws353(directory: Path | None, out: Path, raters: str) -> None:
    """Import WordSimilarity-353: raters 1-13 on all 353 pairs (4,589 judgments, alpha 0.590);
    --raters 16 for every rater of the distribution (5,189 judgments, alpha 0.560).

    Without DIRECTORY, reads $HARNESS_WS353_DIR if set, else the copy bundled with harness.
    DIRECTORY is your own copy of the distribution: set1.csv, set2.csv, combined.csv and
    instructions.txt.
    """
    dataset = load_ws353(directory)
    j = dataset.rater_table(int(raters))
    write_judgments(j, out)
    source = "the copy bundled with harness" if dataset.bundled else str(dataset.directory)
    click.echo(
        f"Wrote {out}: {len(j):,} judgments over {j['item_id'].nunique()} items "
        f"and {j['worker_id'].nunique()} workers (from {source})."
    )


@import_group.command("mturk-batch")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--spec",
    "spec_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The task spec of the instrument the batch ran (its items, scale and mapping).",
)
@click.option(
    "--study",
    "name",
    metavar="NAME",
    help="The new study's name (default: the spec's).",
)
@click.option(
    "--item",
    metavar="COLUMN",
    help="The column naming each answer's item by its id (e.g. Input.item_id); {n} counts "
    "1..--per-row. Overrides the spec's imports.mturk_batch.",
)
@click.option(
    "--value",
    metavar="COLUMN",
    help="The column (or crowd-form field, as Answer.<field>) holding the answer.",
)
@click.option(
    "--choice",
    "choices",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Instead of --value: a choice's field (a crowd-radio-button's, true when chosen, "
    "e.g. Answer.sim.3) and its value; repeat for each choice.",
)
@click.option("--per-row", type=click.IntRange(1, 1000), help="Answers per row.")
@click.option("--encoding", default="utf-8", show_default=True, help="The files' text encoding.")
@click.option(
    "--skip-bad-rows",
    is_flag=True,
    help="Store the good rows and write the bad ones (with their lines and problems) to "
    "--kept-out, instead of refusing the import.",
)
@click.option(
    "--kept-out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where --skip-bad-rows writes the rows kept out (default: STUDY-kept-out.csv).",
)
@db_option
def mturk_batch(
    files: tuple[Path, ...],
    spec_path: Path,
    name: str | None,
    item: str | None,
    value: str | None,
    choices: tuple[str, ...],
    per_row: int | None,
    encoding: str,
    skip_bad_rows: bool,
    kept_out: Path | None,
    db: str | None,
) -> None:
    """Store MTurk batch-results files as a study.

    FILES are the requester website's Batch_<id>_batch_results.csv; several files of one batch
    are read together, an assignment given twice counted once.
    Each row's answers are mapped to the spec's items and scale; any problem is reported with
    its file, line and column, and nothing is stored (with --skip-bad-rows, bad rows are kept
    out and written aside). Without a mapping, rows are read as harness's own task pages.
    """
    from harness.archives import import_mturk_batch, mapping_for
    from harness.spec import load_spec
    from harness.store.database import database_url, opened_store
    from harness.store.migrations import upgrade

    loaded = load_spec(spec_path)
    mapping = mapping_for(loaded, item, value, per_row, _choices(choices))
    upgrade(database_url(db))
    with opened_store(db) as engine:
        done = import_mturk_batch(
            engine,
            loaded,
            list(files),
            mapping,
            name=name or loaded.spec.study.name,
            encoding=encoding,
            keep_going=skip_bad_rows,
            kept_out=kept_out,
        )
    stored, batch = done.stored, done.batch
    click.echo(
        f"{done.name}: {stored.assignments:,} assignments of {stored.workers:,} workers on "
        f"{stored.hits:,} HITs, {stored.judgments:,} judgments stored "
        f"(instrument {loaded.instrument_hash[:12]}, HIT type {batch.hit_type_id})"
    )
    if batch.repeated:
        click.echo(f"{batch.repeated:,} rows repeated an assignment already read: counted once")
    if done.kept_out is not None:
        click.echo(f"{len(batch.bad_rows):,} rows kept out, written to {done.kept_out}:")
        for bad in batch.bad_rows:
            for problem in bad.problems:
                click.echo(f"  {problem}")


def _choices(given: tuple[str, ...]) -> dict[str, float]:
    """``--choice FIELD=VALUE`` options as a map."""
    out = {}
    for text in given:
        name, sep, number = text.rpartition("=")
        try:
            out[name] = float(number)
        except ValueError:
            sep = ""
        if not sep or not name:
            raise click.BadParameter(f"expected FIELD=VALUE, got {text!r}", param_hint="--choice")
    return out


@import_group.command("prolific-export")
@click.argument("export", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--study",
    required=True,
    metavar="NAME",
    help="The stored study whose workers the export joins.",
)
@click.option(
    "--pseudonymize",
    is_flag=True,
    help="Worker ids as `harness export --pseudonymize` writes them; the export's ids dropped.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write (default: STUDY-participants.csv here).",
)
@click.option("--overwrite", is_flag=True, help="Replace --out if it exists.")
@db_option
def prolific_export(
    export: Path,
    study: str,
    pseudonymize: bool,
    out: Path | None,
    overwrite: bool,
    db: str | None,
) -> None:
    """Join Prolific's export to STUDY's workers.

    EXPORT is Prolific's submissions export, demographic columns included.

    Writes one row per worker of STUDY (more for a participant with several submissions):
    worker_id, then the export's columns; participants who are not STUDY's workers are left
    out and counted.
    """
    from harness.archives.prolific_export import join_workers, read_prolific_export
    from harness.errors import InputError
    from harness.store.database import opened_store
    from harness.store.export import id_pseudonym, shared_judgments

    path = out or Path(f"{study}-participants.csv")
    if path.exists() and not overwrite:
        raise InputError(
            f"import prolific-export: {path} exists; give another --out or --overwrite"
        )
    table = read_prolific_export(export)
    with opened_store(db) as engine:
        workers, key = shared_judgments(engine, study, pseudonymize=pseudonymize)
    if workers.empty:
        raise InputError(f"import prolific-export: study {study!r} has no judgments yet")
    hide = None if key is None else (lambda w: id_pseudonym("worker_id", w, key))
    joined = join_workers(sorted(set(workers["worker_id"].astype(str))), table, hide)
    joined.table.to_csv(path, index=False)
    click.echo(
        f"{study}: {joined.matched:,} workers found in the export, {joined.missing:,} not in it; "
        f"{joined.left_out:,} export rows of other participants left out; written to {path}"
    )
