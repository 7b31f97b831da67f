"""`harness characterize --new NEW --original ORIGINAL ...`: the instrument report, three files.

Thin layer: resolves each input (`harness.characterize.inputs`: a long judgments CSV, a stored
study's name, or ``ws353`` for the WS353 distribution), reads system files, runs
`harness.characterize.characterize`, and writes report.html, report.md (+ PNGs) and
report.json with `harness.report.write_report`.
"""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.options import (
    MIN_SHARED_ITEMS,
    db_option,
    level_option,
    resamples_option,
    seed_option,
)


@click.command("characterize")
@click.option(
    "--new",
    "new_ref",
    required=True,
    metavar="STUDY|CSV",
    help="The new instrument: a stored study's name or a long judgments CSV.",
)
@click.option(
    "--original",
    "original_ref",
    required=True,
    metavar="STUDY|CSV|ws353[:DIR]",
    help="The original: a study, a CSV, or ws353 (WS353 as its study characterized it: "
    "raters 1-13 on all 353 pairs; ws353-16 for all 16 raters of the distribution; "
    "add :DIR for your own copy).",
)
@click.option(
    "--resolution",
    "resolution_ref",
    metavar="STUDY|CSV",
    help="A pair-comparison study over the original's items (p_item_id, q_item_id).",
)
@click.option(
    "--system",
    "system_refs",
    multiple=True,
    metavar="NAME=FILE|FILE|DIR|ws353",
    help="System predictions (item_id, score; or WS353's row, word1, word2, score). "
    "Repeat for more; a directory adds each CSV in it by file name; ws353 adds the three "
    "systems' WS353 predictions bundled with harness.",
)
@click.option(
    "--screened",
    "screened_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The new instrument's judgments after screening (long CSV).",
)
@click.option(
    "--flagged",
    "flagged_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Worker ids to remove as the screened set (one per line, or a CSV with worker_id).",
)
@click.option(
    "--screen",
    "screen_spec",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Screen the new judgments with this task spec's screening policy: its flagged "
    "workers form the screened set, and the report gets the impact of every subset of the "
    "policy's heuristics.",
)
@click.option(
    "--screening-policy",
    help="Name of the policy that did the screening, for the report.",
)
@level_option("Level of measurement for alpha.")
@resamples_option("Bootstrap resamples for alpha's interval (0: none).")
@seed_option
@click.option(
    "--min-shared-items",
    type=click.IntRange(min=4),
    default=MIN_SHARED_ITEMS,
    show_default=True,
    help="Refuse to compare instruments sharing fewer items.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Directory for the report files.",
)
@click.option(
    "--arm",
    metavar="NAME",
    help="Of a study with arms (--new), the arm to characterize (default: the base, the "
    "spec's first arm); the report's Arms section compares every arm.",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@db_option
def characterize_command(
    new_ref: str,
    original_ref: str,
    resolution_ref: str | None,
    system_refs: tuple[str, ...],
    screened_path: Path | None,
    flagged_path: Path | None,
    screen_spec: Path | None,
    screening_policy: str | None,
    level: str,
    resamples: int,
    seed: int,
    min_shared_items: int,
    out: Path,
    arm: str | None,
    quiet: bool,
    db: str | None,
) -> None:
    """Characterize a new instrument against the original and write the report to --out.

    Writes report.html (self-contained), report.md with its PNG plots, and report.json (every
    figure, stable keys; see docs/characterize.md). Example:

    harness characterize --new reproduction.csv --original ws353 --resolution resolution.csv
    --system ws353 --out report

    A study with arms is never pooled: its base arm is characterized (--arm NAME for another),
    and the report's Arms section compares every arm against the base.
    """
    from harness.report.run import characterize_refs

    def say(message: str) -> None:
        if not quiet:
            click.echo(f"characterize: {message}", err=True)

    lines = characterize_refs(
        new_ref,
        original_ref,
        out,
        db=db,
        resolution_ref=resolution_ref,
        system_refs=system_refs,
        screened_path=screened_path,
        flagged_path=flagged_path,
        screen_spec=screen_spec,
        screening_policy=screening_policy,
        level=level,  # type: ignore[arg-type]
        resamples=resamples,
        seed=seed,
        min_shared_items=min_shared_items,
        arm=arm,
        say=say,
    )
    for line in lines:
        click.echo(line)
