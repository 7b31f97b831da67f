"""`harness review STUDY`: apply screening decisions, then approve the rest."""

from __future__ import annotations

import click

from harness.commands._platform import db_option, open_engine, study_provider


@click.command("review")
@click.argument("study")
@db_option
@click.option("--dry-run", is_flag=True, help="Print what would be done; do nothing.")
def review(study: str, db: str | None, dry_run: bool) -> None:
    """Review STUDY: block, reject (with feedback) and replace as screening decided, then
    approve every other submitted assignment. Every action is logged with its reason and is
    done once however often this runs; nothing the platform auto-approved is rejected."""
    from harness.platform.review import review_study
    from harness.platform.studies import find_study
    from harness.store import session_scope

    engine = open_engine(db)
    try:
        provider = study_provider(engine, study)
        with session_scope(engine) as session:
            actions = review_study(session, provider, find_study(session, study), dry_run=dry_run)
            lines = [a.line() for a in actions]
    finally:
        engine.dispose()
    prefix = "would " if dry_run else ""
    for line in lines:
        click.echo(prefix + line)
    kinds: dict[str, int] = {}
    for a in actions:
        kinds[a.kind] = kinds.get(a.kind, 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "nothing to do"
    click.echo(f"{study}: {'dry run, ' if dry_run else ''}{summary}")
