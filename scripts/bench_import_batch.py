"""Time `harness import mturk-batch` on a large batch-results file, on a fresh SQLite store.

The file: ITEMS items, two per HIT, each HIT done by WORKERS workers (one row per assignment,
the website's columns, every cell quoted), mapped with ``--item Input.item_{n} --value
Answer.rating_{n} --per-row 2``. Run from the project root (``PYTHONPATH`` picks the code
measured):

    python scripts/bench_import_batch.py [--items 2000] [--workers 10]

Prints the rows, judgments and wall-clock seconds of the import (the command in process, the
store's migration done before the clock starts).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

from harness.cli import main
from harness.store.migrations import upgrade
from tests.archives.factories import MAPPING, mapped_batch, write_batch
from tests.platform.factories import small_spec


def run(items: int, workers: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        spec = small_spec(where, items=items)
        rows = mapped_batch(items=items, workers=workers)
        path = write_batch(where / "Batch_1_batch_results.csv", rows)
        db = f"sqlite:///{where / 'h.db'}"
        upgrade(db)
        start = time.perf_counter()
        result = CliRunner().invoke(
            main, ["import", "mturk-batch", str(path), "--spec", str(spec), "--db", db, *MAPPING]
        )
        seconds = time.perf_counter() - start
        assert result.exit_code == 0, result.output
        print(f"{len(rows):,} rows, {2 * len(rows):,} judgments: {seconds:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=10)
    arguments = parser.parse_args()
    run(arguments.items, arguments.workers)
