"""`harness import DATASET [DIR] --out FILE.csv`: published instruments into the long table."""

from __future__ import annotations

from pathlib import Path

import click

from harness.datasets import load_ws353
from harness.judgments import write_judgments


@click.group("import")
def import_group() -> None:
    """Turn a published dataset's distribution into a long judgments CSV."""


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
