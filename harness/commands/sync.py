"""`harness sync STUDY`: bring every submitted assignment of a study into the store."""

from __future__ import annotations

import click

from harness.commands.options import apply_option, db_option


@click.command("sync")
@click.argument("study")
@db_option
@click.option(
    "--from-queue",
    "queue_url",
    is_flag=False,
    flag_value="-",  # harness.platform.sync_run.STORED_QUEUE
    default=None,
    metavar="[QUEUE_URL]",
    help="Consume MTurk's notifications from this SQS queue instead of polling every HIT "
    "(without a URL: the queue the study was launched with, --notify-queue).",
)
@apply_option
def sync(study: str, db: str | None, queue_url: str | None, apply_decisions: bool) -> None:
    """Pull STUDY's assignments from the platform (all pages) and store what is new.

    With mturk hosting the answers are read into judgments; with external hosting the task
    server stored them and sync records the platform's status (and recovers answers the task
    server missed). Every stored assignment not screened yet is screened. Running it twice
    changes nothing the second time.
    """
    from harness.store.database import opened_store

    with opened_store(db) as engine:  # a missing store is refused before the heavy imports
        from harness.platform.local_service import require_answering
        from harness.platform.sync_run import sync_stored_study
        from harness.store.studies import read_launched

        running = read_launched(engine, study)
        require_answering(running)
        run = sync_stored_study(engine, running, apply=apply_decisions, queue_url=queue_url)
    for line in run.lines(study):
        click.echo(line)
    for warning in run.warnings(study):
        click.echo(warning, err=True)
