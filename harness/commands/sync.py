"""`harness sync STUDY`: bring every submitted assignment of a study into the store."""

from __future__ import annotations

from typing import Any

import click

from harness.commands.options import apply_option, db_option
from harness.errors import InputError

STORED_QUEUE = "-"


@click.command("sync")
@click.argument("study")
@db_option
@click.option(
    "--from-queue",
    "queue_url",
    is_flag=False,
    flag_value=STORED_QUEUE,
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
    from harness.platform.registry import provider_for
    from harness.platform.review import apply_pending_decisions
    from harness.platform.submissions.after_submission import run_after_submission, screen
    from harness.platform.sync import sync_from_queue, sync_study
    from harness.store import launched_study, session_scope
    from harness.store.database import open_store

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            running = launched_study(session, study)
        provider = provider_for(running)
        hooks = study_sync_hooks(engine, provider, running, screening=False)
        if queue_url == STORED_QUEUE:
            queue_url = running.platform.notification_queue
            if not queue_url:
                raise InputError(
                    f"study {study!r} was launched without --notify-queue: give the queue's "
                    "URL to --from-queue, or sync without it (polling)"
                )
        if queue_url:
            sqs = provider.platform.queue_client(running.target, queue_url)
            report = sync_from_queue(engine, provider, running, hooks, sqs, queue_url)
        else:
            report = sync_study(engine, provider, running, hooks)
        # every stored assignment is screened (one whose live screening failed included), and
        # decisions still pending (e.g. a rejection that waited for the submission) are done
        failure = run_after_submission(engine, screen, running)
        if failure:
            report.hook_failures.append(failure)
        acted = []
        if apply_decisions:
            with session_scope(engine) as session:
                acted = [a.line() for a in apply_pending_decisions(session, provider, running)]
    finally:
        engine.dispose()
    click.echo(report.line(study))
    for action in acted:
        click.echo(f"  {action}")
    for failure in report.arm_failures:
        click.echo(f"warning: arms: {failure} (the next sync tries again)", err=True)
    for failure in report.hook_failures:
        click.echo(
            f"warning: live screening failed ({failure}); the judgments are stored and will be "
            f"screened on the next sync (`harness screen {study}` shows every worker's scores)",
            err=True,
        )


def study_sync_hooks(
    engine: Any, provider: Any, running: Any, *, apply: bool = True, screening: bool = True
) -> Any:
    """Answers read with the platform's codec, checked against the stored instrument, and
    (``screening``) screened once the sync has stored them (``apply``: and acted on)."""
    from sqlmodel import select

    from harness.platform.submissions.after_submission import hook
    from harness.platform.sync import SyncHooks
    from harness.render.instrument import stored_instrument
    from harness.store import frozen_instrument, session_scope
    from harness.store.arm_tables import hit_instruments
    from harness.store.models import Hit

    with session_scope(engine) as session:
        hits = list(session.exec(select(Hit).where(Hit.study_id == running.id)))
        of_hit = hit_instruments(session, hits)  # a study with arms: each HIT its arm's
        built = {
            i: stored_instrument(frozen_instrument(session, i))
            for i in {running.study.instrument_id, *of_hit.values()}
        }
    by_hit = {hit_id: built[i] for hit_id, i in of_hit.items()}
    after = hook(apply) if screening else None  # sync screens and acts itself, once
    return SyncHooks.of(provider, built[running.study.instrument_id], after, by_hit)
