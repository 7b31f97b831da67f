"""`harness characterize --new NEW --original ORIGINAL ...`: the instrument report, three files.

Thin layer: resolves each input (a long judgments CSV, a stored study's name, or ``ws353`` for
the WS353 distribution), reads system files, runs `harness.characterize.characterize`, and
writes report.html, report.md (+ PNGs) and report.json with `harness.report.write_report`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import click
import pandas as pd

from harness.characterize import (
    MIN_SHARED_ITEMS,
    Characterization,
    Instrument,
    characterize,
    instrument_from_csv,
    instrument_from_study,
    instrument_from_table,
    instrument_from_ws353,
)
from harness.commands.db import db_option
from harness.commands.options import level_option, resamples_option, seed_option
from harness.datasets import load_ws353
from harness.datasets.systems import read_system_refs
from harness.errors import InputError
from harness.judgments import read_judgments
from harness.report import write_report
from harness.report.compare import closest_pair_verdict
from harness.report.numbers import interval, num
from harness.screening import ScreeningContext, screen_workers
from harness.screening.impact import screening_impact
from harness.spec import load_spec

DATASET_PREFIX = "ws353"


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
    help="The original: a study, a CSV, or ws353 (the WS353 distribution; "
    "ws353:DIR for its directory).",
)
@click.option(
    "--resolution",
    "resolution_ref",
    default=None,
    metavar="STUDY|CSV",
    help="A pair-comparison study over the original's items (p_item_id, q_item_id).",
)
@click.option(
    "--system",
    "system_refs",
    multiple=True,
    metavar="NAME=FILE|FILE|DIR",
    help="System predictions (item_id, score; or WS353's row, word1, word2, score). "
    "Repeat for more; a directory adds each CSV in it by file name.",
)
@click.option(
    "--screened",
    "screened_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The new instrument's judgments after screening (long CSV).",
)
@click.option(
    "--flagged",
    "flagged_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Worker ids to remove as the screened set (one per line, or a CSV with worker_id).",
)
@click.option(
    "--screen",
    "screen_spec",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Screen the new judgments with this task spec's screening policy: its flagged "
    "workers form the screened set, and the report gets the impact of every subset of the "
    "policy's heuristics.",
)
@click.option(
    "--screening-policy",
    default=None,
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
    quiet: bool,
    db: str | None,
) -> None:
    """Characterize a new instrument against the original and write the report to --out.

    Writes report.html (self-contained), report.md with its PNG plots, and report.json (every
    figure, stable keys; see docs/characterize.md). Example:

    harness characterize --new reproduction.csv --original ws353 --resolution resolution.csv
    --system ../shared/data/ws353-systems --out report
    """

    def say(message: str) -> None:
        if not quiet:
            click.echo(f"characterize: {message}", err=True)

    if sum(x is not None for x in (screened_path, flagged_path, screen_spec)) > 1:
        raise InputError("give one of --screened, --flagged or --screen")
    say(f"reading the new instrument ({new_ref})")
    new = _instrument(new_ref, db)
    say(f"reading the original instrument ({original_ref})")
    original = _instrument(original_ref, db)
    resolution = None
    if resolution_ref is not None:
        say(f"reading the resolution study ({resolution_ref})")
        resolution = _instrument(resolution_ref, db)
    scores, sources = read_system_refs(system_refs, _ws353_items(original_ref))
    screened, flagged, policy = _screened(new, screened_path, flagged_path, screening_policy)
    impact = None
    if screen_spec is not None:
        say(f"screening the new judgments with {screen_spec}'s policy (every subset)")
        flagged, impact = _screen(new, new_ref, screen_spec, scores)
        policy = screening_policy or screen_spec.stem
    result = characterize(
        new,
        original,
        resolution_study=resolution,
        system_scores=scores,
        system_sources=sources,
        screened=screened,
        flagged_workers=flagged,
        screening_policy=policy,
        screening_impact=impact,
        level=level,  # type: ignore[arg-type]
        resamples=resamples,
        seed=seed,
        min_shared_items=min_shared_items,
        progress=say,
    )
    say(f"writing the report to {out}")
    written = write_report(result, out)
    click.echo(headline(result))
    click.echo(f"Wrote {', '.join(p.name for p in written)} to {out}")


def headline(c: Characterization) -> str:
    """The headline figures the command prints."""
    new, orig = c.new.repeatability, c.original.repeatability
    r = c.reproducibility
    lines = [
        f"alpha {c.new_instrument.name} (new): {num(new.alpha)} {interval(new.ci)} {new.verdict}",
        f"alpha {c.original_instrument.name} (original): {num(orig.alpha)} {interval(orig.ci)} "
        f"{orig.verdict}",
        f"reproducibility on {r.overlap.n_shared} shared items: Spearman rho of means "
        f"{num(r.spearman_means)}, Pearson r of means {num(r.pearson_means)}, Pearson r of sds "
        f"{num(r.pearson_sds)}",
    ]
    if c.screened is not None:
        s = c.screened.new.repeatability
        lines.insert(1, f"alpha {c.new_instrument.name} screened ({c.screened.policy}): "
                     f"{num(s.alpha)} {interval(s.ci)} {s.verdict}")  # fmt: skip
    if c.resolution is not None:
        res = c.resolution
        t = res.threshold_95
        lines.append(
            "resolution: not reached" if t is None else
            f"resolution: {num(t, 2)} ({res.item_pairs_above:,} of {res.n_item_pairs:,} item "
            "pairs of the original at or above it)"
        )  # fmt: skip
    if c.systems is not None:
        lines.append(closest_pair_verdict(c))
    return "\n".join(lines)


def _instrument(ref: str, db: str | None) -> Instrument:
    """A CSV path, ``ws353[:DIR]``, or a stored study's name."""
    if _is_dataset(ref):
        directory = ref.partition(":")[2] or None
        return instrument_from_ws353(load_ws353(directory))
    path = Path(ref)
    if path.is_file():
        return instrument_from_csv(path)
    if path.suffix.lower() == ".csv" or "/" in ref:
        raise InputError(f"{ref}: no such file")
    return _stored(ref, db)


def _is_dataset(ref: str) -> bool:
    """``ws353`` or ``ws353:DIR`` (a study may be called ws353-reproduction)."""
    return ref == DATASET_PREFIX or ref.startswith(DATASET_PREFIX + ":")


def _stored(name: str, db: str | None) -> Instrument:
    from harness.store import database_url, load_study, make_engine, session_scope

    engine = make_engine(database_url(db))
    try:
        with session_scope(engine) as session:
            stored = load_study(session, name)
    finally:
        engine.dispose()
    return instrument_from_study(stored.study, stored.instrument, stored.judgments)


def _ws353_items(original_ref: str) -> Callable[[], pd.DataFrame]:
    @cache
    def items() -> pd.DataFrame:
        directory = original_ref.partition(":")[2] or None
        return load_ws353(directory if _is_dataset(original_ref) else None).items

    return items


def _screened(
    new: Instrument, screened: Path | None, flagged: Path | None, policy: str | None
) -> tuple[pd.DataFrame | None, list[str] | None, str]:
    """The screened table or the flagged workers (checked against the new raters), and a name."""
    if screened is not None:
        table = instrument_from_table(
            read_judgments(screened), name=screened.stem, kind="csv"
        ).judgments
        return table, None, policy or screened.stem
    if flagged is not None:
        workers = _worker_list(flagged)
        unknown = sorted(workers - set(new.judgments["worker_id"]))
        if unknown:
            raise InputError(
                f"{flagged}: {len(unknown)} worker(s) are not raters of {new.name} "
                f"(e.g. {unknown[0]!r})"
            )
        return None, sorted(workers), policy or flagged.stem
    return None, None, policy or "screened"


def _screen(
    new: Instrument, new_ref: str, spec_path: Path, scores: dict[str, pd.Series]
) -> tuple[list[str], pd.DataFrame]:
    """Workers the spec's policy flags in the new judgments (controls included), and the impact
    table of every subset of its heuristics."""
    if new.kind == "dataset" or new.given is None:
        raise InputError(f"--screen: {new_ref} is not a judgments CSV or a stored study")
    judgments = new.given
    context = ScreeningContext.from_spec(load_spec(spec_path))
    flagged = screen_workers(judgments, context).flagged
    impact = screening_impact(judgments, context, scores or None)
    return sorted(str(w) for w in flagged[flagged].index), impact


def _worker_list(path: Path) -> set[str]:
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if line]
    if lines and lines[0].split(",")[0].strip() == "worker_id":
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return {w.strip() for w in frame["worker_id"] if w.strip()}
    return set(lines)
