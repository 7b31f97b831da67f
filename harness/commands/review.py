"""`harness review STUDY`: apply screening decisions, then approve the rest."""

from __future__ import annotations

from collections import Counter

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
    from harness.errors import StoreError
    from harness.platform.registry import provider_for
    from harness.platform.review import review_study
    from harness.platform.submissions.after_submission import run_after_submission, screen
    from harness.store import launched_study, session_scope
    from harness.store.database import open_store

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            running = launched_study(session, study)
        provider = provider_for(running)
        if not dry_run:  # nothing stored goes unscreened into review
            failure = run_after_submission(engine, screen, running)
            if failure is not None:
                raise StoreError(
                    f"screening {study}'s stored assignments failed ({failure}); nothing was "
                    "reviewed. Fix the cause and run `harness review` again"
                )
        with session_scope(engine) as session:
            actions = review_study(session, provider, running, dry_run=dry_run)
    finally:
        engine.dispose()
    prefix = "would " if dry_run else ""
    if verbose or dry_run:
        for action in actions:
            click.echo(prefix + action.line())
    kinds = Counter(a.kind.value for a in actions)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "nothing to do"
    click.echo(f"{study}: {'dry run, ' if dry_run else ''}{summary}")
