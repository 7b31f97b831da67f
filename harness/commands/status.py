"""`harness status STUDY`: HITs, assignments, coverage and money, from the store."""

from __future__ import annotations

import click

from harness.commands.options import db_option


@click.command("status")
@click.argument("study")
@db_option
def status(study: str, db: str | None) -> None:
    """Show STUDY's HITs and assignments by status, judgments per item against the target,
    and money committed, spent and left in the budget (from the store; run sync first)."""
    from harness.platform.registry import platform_named
    from harness.platform.status import study_report
    from harness.store import launched_study, session_scope
    from harness.store.database import open_store

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            running = launched_study(session, study)
            platform = platform_named(running.platform.provider)
            report = study_report(session, platform, running)
    finally:
        engine.dispose()
    for line in report.lines():
        click.echo(line)
