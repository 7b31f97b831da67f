"""`harness review STUDY`: apply screening decisions, then approve the rest."""

from __future__ import annotations

import click

from harness.commands.options import db_option


@click.command("review")
@click.argument("study")
@db_option
@click.option("--dry-run", is_flag=True, help="Print what would be done; do nothing.")
@click.option("--verbose", "-v", is_flag=True, help="Print every action, not only the counts.")
def review(study: str, db: str | None, dry_run: bool, verbose: bool) -> None:
    """Review STUDY: block, reject (with feedback) and replace as screening decided, then
    approve every other submitted assignment. Every action is logged with its reason and is
    done once however often this runs; nothing the platform auto-approved is rejected.
    Prints the counts per action (every action with --verbose or --dry-run)."""
    from harness.store.database import opened_store

    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.platform.local_service import require_answering
        from harness.platform.review import review_stored_study, review_summary
        from harness.store.studies import read_launched

        running = read_launched(engine, study)
        require_answering(running)
        actions = review_stored_study(engine, running, dry_run=dry_run)
    prefix = "would " if dry_run else ""
    if verbose or dry_run:
        for action in actions:
            click.echo(prefix + action.line())
    click.echo(review_summary(study, actions, dry_run=dry_run))
