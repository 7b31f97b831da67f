"""`harness status STUDY [--watch]`: HITs, assignments, coverage, money and screening, from
the store; with --watch, refreshed in place with pace, alpha, blocks and the latest events."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from harness.commands.options import db_option

if TYPE_CHECKING:
    from sqlmodel import Session

    from harness.store.studies import LaunchedStudy


@click.command("status")
@click.argument("study")
@db_option
@click.option(
    "--watch", is_flag=True,
    help="Refresh in place (until Ctrl-C), adding pace, alpha with its interval, blocked "
    "workers and the latest events: the dashboard's headline in the terminal.",
)  # fmt: skip
@click.option(
    "--every", type=click.FloatRange(min=0.2), default=2.0, show_default=True,
    help="Seconds between refreshes with --watch.",
)  # fmt: skip
@click.option(
    "--updates", type=click.IntRange(min=0), default=0,
    help="With --watch: stop after this many refreshes (0: until Ctrl-C).",
)  # fmt: skip
def status(study: str, db: str | None, watch: bool, every: float, updates: int) -> None:
    """Show STUDY's HITs and assignments by status, judgments per item against the target,
    and money committed, spent and left in the budget (from the store; run sync first)."""
    from harness.platform.registry import platform_named
    from harness.platform.status import study_report
    from harness.store import launched_study, session_scope
    from harness.store.database import open_store

    engine = open_store(db)
    note = None
    try:
        with session_scope(engine) as session:
            running = launched_study(session, study)
            if not watch:
                platform = platform_named(running.platform.provider)
                note = _platform_pause(session, running)
                running = launched_study(session, study)  # as the platform's pause left it
                report = study_report(session, platform, running)
        if watch:
            _watch(engine, running.id, every, updates)
            return
    finally:
        engine.dispose()
    for line in report.lines():
        click.echo(line)
    if note:
        click.echo(f"  {note}")


def _platform_pause(session: Session, running: LaunchedStudy) -> str | None:
    """On a platform that pauses studies itself (Prolific), read whether the study is paused
    there and record a pause or resume made there (`harness.platform.pause`); what was
    recorded, or why the platform could not be read (the rest comes from the store)."""
    from harness.errors import HarnessError
    from harness.platform.contract import pausing
    from harness.platform.pause import read_platform_pause
    from harness.platform.registry import platform_named, provider_for

    platform = platform_named(running.platform.provider)
    support = pausing(platform)
    if not support.can or support.at_entry:
        return None  # no pause, or harness's own (a study link): the store has it all
    try:
        return read_platform_pause(session, provider_for(running), running)
    except HarnessError as exc:
        session.rollback()
        return f"could not read the study's status from {platform.label}: {exc}"


def _watch(engine: object, study_id: int, every: float, updates: int) -> None:
    import time

    from harness.dashboard.headline import headline_lines
    from harness.dashboard.watch import Watcher

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
