"""`harness sync STUDY`: bring every submitted assignment of a study into the store."""

from __future__ import annotations

from typing import Any

import click

from harness.commands._platform import (
    after_submission_hook,
    apply_option,
    db_option,
    open_engine,
    study_provider,
)
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
    server missed). Running it twice changes nothing the second time.
    """
    from harness.platform.sync import sync_from_queue, sync_study

    engine = open_engine(db)
    try:
        provider = study_provider(engine, study)
        hooks = sync_hooks(engine, study, apply=apply_decisions)
        if queue_url == STORED_QUEUE:
            queue_url = _stored_queue(engine, study)
        if queue_url:
            import boto3

            region = _queue_region(queue_url)
            sqs = boto3.client("sqs", region_name=region)
            report = sync_from_queue(engine, provider, study, hooks, sqs, queue_url)
        else:
            report = sync_study(engine, provider, study, hooks)
        acted = _act_on_pending(engine, provider, study) if apply_decisions else []
    finally:
        engine.dispose()
    click.echo(report.line(study))
    for action in acted:
        click.echo(f"  {action}")
    for failure in report.hook_failures:
        click.echo(
            f"warning: live screening failed for {failure}; its judgments are stored "
            f"(`harness screen {study}` shows every worker's scores)",
            err=True,
        )


def sync_hooks(engine: Any, study_name: str, *, apply: bool = True) -> Any:
    """Answers read with the task pages' codec, checked against the stored instrument, and
    screened live as each new submission is stored (``apply``: and acted on at once)."""
    from harness.platform.studies import find_study
    from harness.platform.sync import SyncHooks
    from harness.render.answers import answers_from_xml
    from harness.render.validation import check_answers
    from harness.store import session_scope

    with session_scope(engine) as session:
        study = find_study(session, study_name)
        instrument = stored_instrument_of(session, study.instrument_id)

    def check(plan: Any, answers: Any) -> list[str]:
        return list(check_answers(instrument, plan, answers))

    return SyncHooks(
        parse=answers_from_xml, check=check, after_submission=after_submission_hook(apply)
    )


def stored_instrument_of(session: Any, instrument_id: int) -> Any:
    """The instrument as the store froze it (spec, items, guidelines): no spec file needed."""
    from sqlmodel import select

    from harness.render.instrument import stored_instrument
    from harness.store.models import InstrumentVersion, Item

    version = session.get(InstrumentVersion, instrument_id)
    items = session.exec(select(Item).where(Item.instrument_id == instrument_id)).all()
    rows = [
        {"item_id": i.key, "role": i.role, "gold": i.gold, "group": i.group, **i.display}
        for i in items
    ]
    return stored_instrument(version.spec, rows, version.guidelines)


def _act_on_pending(engine: Any, provider: Any, study_name: str) -> list[str]:
    """Carry out screening decisions still pending (e.g. a rejection that waited for the
    worker's submission to reach the platform)."""
    from harness.platform.review import apply_pending_decisions
    from harness.platform.studies import find_study
    from harness.store import session_scope

    with session_scope(engine) as session:
        done = apply_pending_decisions(session, provider, find_study(session, study_name))
        return [a.line() for a in done]


def _stored_queue(engine: Any, study_name: str) -> str:
    from harness.platform.studies import find_study, platform_of
    from harness.store import session_scope

    with session_scope(engine) as session:
        queue = platform_of(session, find_study(session, study_name)).notification_queue
    if not queue:
        raise InputError(
            f"study {study_name!r} was launched without --notify-queue: give the queue's URL "
            "to --from-queue, or sync without it (polling)"
        )
    return queue


def _queue_region(queue_url: str) -> str:
    """The region of an SQS queue URL (https://sqs.REGION.amazonaws.com/...), else us-east-1."""
    from urllib.parse import urlsplit

    host = urlsplit(queue_url).hostname or ""
    parts = host.split(".")
    if len(parts) >= 3 and parts[0] == "sqs":
        return parts[1]
    return "us-east-1"
