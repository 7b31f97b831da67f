"""`harness status STUDY [--watch]`: HITs, assignments, coverage, money and screening, from
the store; with --watch, refreshed in place with pace, alpha, blocks and the latest events."""

from __future__ import annotations

import click

from harness.commands.options import db_option


@click.command("status")
@click.argument("study")
@db_option
@click.option(
    "--watch",
    is_flag=True,
    help="Refresh in place (until Ctrl-C), adding pace, alpha with its interval, blocked "
    "workers and the latest events: the dashboard's headline in the terminal.",
)
@click.option(
    "--every",
    type=click.FloatRange(min=0.2),
    default=2.0,
    show_default=True,
    help="Seconds between refreshes with --watch.",
)
@click.option(
    "--updates",
    type=click.IntRange(min=0),
    default=0,
    help="With --watch: stop after this many refreshes (0: until Ctrl-C).",
)
def status(study: str, db: str | None, watch: bool, every: float, updates: int) -> None:
    """Show STUDY's HITs and assignments by status, judgments per item against the target,
    and money committed, spent and left in the budget (from the store; run sync first)."""
    from harness.store.database import opened_store

    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.platform.status import stored_study_status

        if watch:
            from harness.store.studies import read_launched

            _watch(engine, read_launched(engine, study).id, every, updates)
            return
        lines = stored_study_status(engine, study)
    for line in lines:
        click.echo(line)


def _watch(engine: object, study_id: int, every: float, updates: int) -> None:
    import time

    from harness.web.dashboard.headline import headline_lines
    from harness.web.dashboard.watch import Watcher

    watcher = Watcher(engine, check_every=0.0, alpha_every=0.0, background=False)  # type: ignore[arg-type]
    shown = 0
    try:
        while True:
            lines = headline_lines(watcher.snapshot(study_id))
            stamp = time.strftime("%H:%M:%S")
            click.clear()
            click.echo("\n".join([*lines, f"(refreshed {stamp} every {every:g} s; Ctrl-C stops)"]))
            shown += 1
            if updates and shown >= updates:
                return
            time.sleep(every)
    except KeyboardInterrupt:
        return
