"""`harness import mturk-batch`'s work: read the files, check every row, store the study.

All or nothing by default: any problem refuses the import with every problem listed, and the
store is left as it was. Asked to keep going, rows with problems are kept out of the study and
written, as they came with their file, line and problems, to a file of their own, so that no
row is lost; a problem with a file itself (its shape, its HIT type) still refuses.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from harness.archives.batch_file import read_batch_files
from harness.archives.mapping import BatchMapping
from harness.archives.mturk_batch import BadRow, Batch, read_batch
from harness.archives.stored_batch import ImportResult, store_batch
from harness.errors import InputError, Problem, ValidationError
from harness.spec import LoadedSpec
from harness.store.database import session_scope


@dataclass(frozen=True)
class BatchImport:
    """What an import did: the study stored, the rows kept out and where they were written."""

    name: str
    stored: ImportResult
    batch: Batch
    kept_out: Path | None


def import_mturk_batch(
    engine: sa.Engine,
    loaded: LoadedSpec,
    paths: Sequence[Path],
    mapping: BatchMapping | None,
    *,
    name: str,
    encoding: str = "utf-8",
    keep_going: bool = False,
    kept_out: Path | None = None,
) -> BatchImport:
    """Store the batch-results files ``paths`` as the study ``name``; `ValidationError` with
    every problem when anything (with ``keep_going``: anything but bad rows) is wrong."""
    files = read_batch_files(paths, encoding)
    batch = read_batch(files, loaded, mapping)
    refusing: list[Problem] = batch.file_problems if keep_going else batch.problems
    if refusing:
        raise ValidationError(refusing)
    if not batch.assignments:
        raise ValidationError(
            [Problem(str(paths[0]), None, "", "no row could be imported")]
            + [p for bad in batch.bad_rows for p in bad.problems]
        )
    written = None
    if batch.bad_rows:
        written = kept_out or Path(f"{name}-kept-out.csv")
        if written.exists():  # it may hold another import's rows: never written over
            raise InputError(f"{written} exists; give --kept-out another file")
    with session_scope(engine) as session:
        stored = store_batch(session, loaded, batch, name, [str(p) for p in paths])
    if written is not None:
        write_bad_rows(batch.bad_rows, written)
    return BatchImport(name, stored, batch, written)


def write_bad_rows(bad_rows: Sequence[BadRow], path: Path) -> None:
    """The rows kept out, each as it came (every column of its file), with its file, line and
    problems first."""
    columns: list[str] = []
    for bad in bad_rows:
        columns += [c for c in bad.row.cells if c not in columns]
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(["source", "line", "problems", *columns])
        for bad in bad_rows:
            problems = "; ".join(f"{p.field}: {p.message}" for p in bad.problems)
            cells = [bad.row.cells.get(c, "") for c in columns]
            writer.writerow([bad.row.source, bad.row.line, problems, *cells])
