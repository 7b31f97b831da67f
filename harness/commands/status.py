"""`harness status STUDY`: HITs, assignments, coverage and money, from the store."""

from __future__ import annotations

import click

from harness.commands._platform import db_option, open_engine, study_provider


@click.command("status")
@click.argument("study")
@db_option
def status(study: str, db: str | None) -> None:
    """Show STUDY's HITs and assignments by status, judgments per item against the target,
    and money committed, spent and left in the budget (from the store; run sync first)."""
    from harness.platform.status import study_report
    from harness.store import session_scope

    engine = open_engine(db)
    try:
        provider = study_provider(engine, study)
        with session_scope(engine) as session:
            report = study_report(session, provider, study)
    finally:
        engine.dispose()
    for line in report.lines():
        click.echo(line)
