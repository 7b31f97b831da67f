"""`harness agreement JUDGMENTS.csv`: Krippendorff's alpha with bootstrap interval and verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from harness.commands.options import BOOTSTRAP_METHODS, level_option, resamples_option, seed_option
from harness.commands.output import finite
from harness.errors import JudgmentsError

if TYPE_CHECKING:  # --help imports no statistics
    import pandas as pd

    from harness.stats.agreement import AgreementSummary


@click.command("agreement")
@click.argument("judgments", type=click.Path(dir_okay=False, path_type=Path))
@level_option()
@resamples_option()
@click.option(
    "--bootstrap-method",
    "method",
    type=click.Choice(BOOTSTRAP_METHODS),
    default="units",
    show_default=True,
    help="units: resample items; kalpha: resample pairs of values pooled over items (Hayes & "
    "Krippendorff's KALPHA macro), which ignores that one item's values belong together and "
    "gives a narrower interval; the units interval is printed beside it.",
)
@click.option(
    "--alpha-min",
    type=click.FloatRange(-1, 1),
    default=0.667,
    show_default=True,
    help="Smallest acceptable alpha: q is the share of bootstrap alphas below it.",
)
@seed_option
@click.option(
    "--wide", is_flag=True, help="JUDGMENTS is wide: one row per item, one column per worker."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def agreement(
    judgments: Path,
    level: str,
    resamples: int,
    method: str,
    alpha_min: float,
    seed: int,
    wide: bool,
    as_json: bool,
) -> None:
    """Krippendorff's alpha of a judgments CSV, with a bootstrap interval, q and a verdict.

    JUDGMENTS is a long table (item_id, worker_id, value[, skipped]); with --wide, a table whose
    first column names the item and whose other columns are workers (empty cell: no judgment).
    """
    numeric = level != "nominal"
    from harness.judgments import read_judgments
    from harness.stats.agreement import summarize_agreement

    table = _read_wide(judgments, numeric) if wide else read_judgments(judgments, numeric=numeric)
    summary = summarize_agreement(
        table,
        level,  # type: ignore[arg-type]
        resamples=resamples,
        method=method,  # type: ignore[arg-type]
        alpha_min=alpha_min,
        seed=seed,
    )
    if as_json:
        click.echo(json.dumps(finite(summary.to_dict()), indent=2))
    else:
        click.echo(format_summary(summary, judgments))


def _read_wide(path: Path, numeric: bool) -> pd.DataFrame:
    from harness.judgments import normalize_judgments, read_text_csv, wide_to_long

    frame = read_text_csv(path, expected_header="a header row: item column, then one per worker")
    if frame.empty:
        raise JudgmentsError(f"{path}: no items (the table has a header but no rows)")
    try:
        long = wide_to_long(frame)
    except JudgmentsError as exc:
        raise JudgmentsError(f"{path}: {exc}") from None
    if long.empty:
        raise JudgmentsError(f"{path}: no judgments (every worker cell is empty)")
    return normalize_judgments(long, source=str(path), numeric=numeric)


def format_summary(summary: AgreementSummary, source: Path | str) -> str:
    """The short text summary `harness agreement` prints."""
    from harness.stats.agreement import KALPHA_NOTE

    lines = [f"Krippendorff's alpha ({summary.level}) of {source}: {summary.alpha:.3f}"]
    b = summary.bootstrap
    if b is not None:
        lines.append(
            f"  {b.confidence:.0%} interval [{b.ci_low:.3f}, {b.ci_high:.3f}]  "
            f"(bootstrap: {b.method}, {b.resamples} resamples, seed {b.seed}"
            + (f", {b.draws:,} pairs per resample" if b.draws else "")
            + ")"
        )
        u = summary.units_check
        if u is not None:
            ratio = summary.narrower
            lines.append(
                f"  units bootstrap (resampling items), for comparison: [{u.ci_low:.3f}, "
                f"{u.ci_high:.3f}]" + (f", {ratio:.1f} times as wide" if ratio is not None else "")
            )
            lines.append(f"  note: {KALPHA_NOTE}")
        lines.append(f"  q = P(alpha < {summary.alpha_min:.3f}) = {b.q_below_min:.3f}")
        if b.n_undefined:
            lines.append(
                f"  {b.n_undefined} resamples had no variation (alpha undefined, left out)"
            )
    lines.append(f"  verdict: {summary.verdict}")
    if summary.warning:
        lines.append(f"  warning: {summary.warning}")
    lines.append(
        f"  data: {summary.n_judgments:,} judgments ({summary.n_skipped:,} skipped) by "
        f"{summary.n_workers} workers on {summary.n_items:,} items; "
        f"{summary.n_pairable_items:,} items with two or more values "
        f"({summary.n_pairable_values:,} pairable values)"
    )
    return "\n".join(lines)
