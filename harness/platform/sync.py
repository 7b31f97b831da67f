"""Bring what a platform holds about a study into the store, exactly once.

For every posted HIT, every submitted assignment (all pages) is reconciled with the store
(`harness.platform.reconcile`), polled or named by the platform's notifications.
Idempotent: a second run writes nothing, not even an event.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.hosting import Hosting
from harness.platform.arms_sync import Fetched, first_arms, has_arms, settle_arms
from harness.platform.contract import EventTopic, PlacesProvider, Provider, PublishedUnit
from harness.platform.pause import read_platform_pause
from harness.platform.places_sync import sync_places
from harness.platform.reconcile import SyncHooks, SyncReport, apply_submission, run_hooks
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event
from harness.store.models import Hit, HitStatus
from harness.store.studies import LaunchedStudy


def sync_study(
    engine: sa.Engine, provider: Provider, study: LaunchedStudy, hooks: SyncHooks
) -> SyncReport:
    """Reconcile every posted HIT of the study with the platform (one transaction per HIT); on a
    platform with places, every submission of its one study (`harness.platform.places_sync`).
    First, a pause or resume made on the platform (Prolific's own, or on its website) is read
    and recorded (`harness.platform.pause.read_platform_pause`)."""
    with session_scope(engine) as session:
        pause = read_platform_pause(session, provider, study)
    if isinstance(provider, PlacesProvider):
        report = sync_places(engine, provider, study, hooks)
        report.pause = pause
        return report
    report = SyncReport(pause=pause)
    with session_scope(engine) as session:
        hits = [
            (h.id, h.platform_hit_id)
            for h in session.exec(
                select(Hit).where(Hit.study_id == study.id).order_by(col(Hit.index))
            )
            if h.id is not None and h.platform_hit_id is not None
        ]
    arms = has_arms(engine, study)
    fetched: Iterable[Fetched] = (
        (hit_id, provider.unit(pid), provider.submissions(pid)) for hit_id, pid in hits
    )
    if arms and study.platform.hosting == Hosting.MTURK:  # workers' arms in the order they came
        fetched = list(fetched)
        first_arms(engine, study, fetched)
    for hit_id, unit, submissions in fetched:
        with session_scope(engine) as session:
            hit = session.get(Hit, hit_id)
            assert hit is not None
            report.hit_changes += _hit_status(session, hit, unit)
            for submission in submissions:
                apply_submission(session, study, hit, submission, hooks, report, arms=arms)
        report.hits += 1
    if arms:
        settle_arms(engine, provider, study, report)
    run_hooks(engine, study, hooks, report)
    return report


def _hit_status(session: Session, hit: Hit, unit: PublishedUnit) -> int:
    """Record the platform's state of a HIT; 1 when it changed, else 0."""
    state, assignments = HitStatus(unit.state.value), unit.assignments
    if hit.status == state and hit.max_assignments == assignments:
        return 0
    record_event(
        session,
        EventKind.HIT_STATUS,
        study_id=hit.study_id,
        subject=hit.platform_hit_id,
        payload={
            "from": hit.status.value,
            "to": state.value,
            "assignments": assignments,
            "source": "platform",
        },
    )
    hit.status = state
    hit.max_assignments = assignments
    session.add(hit)
    return 1


# -- notifications ------------------------------------------------------------------------
def sync_from_queue(
    engine: sa.Engine,
    provider: Provider,
    study: LaunchedStudy,
    hooks: SyncHooks,
    sqs: Any,
    queue_url: str,
) -> SyncReport:
    """Consume the study's notifications from an SQS queue until it is empty.

    Each message is read by the platform (`Platform.events`); each event is looked up on the
    platform (a notification says what happened, the platform says what is true now) and
    stored like a polled submission; a message is deleted only after its effect is committed.
    Messages about other studies' HITs (or none, like a test event) are left in the queue.
    """
    report = SyncReport()
    with session_scope(engine) as session:
        ours = {
            h.platform_hit_id: h.id
            for h in session.exec(select(Hit).where(Hit.study_id == study.id))
            if h.platform_hit_id is not None
        }
    seen_hits: set[str] = set()
    arms = has_arms(engine, study)
    for message in _messages(sqs, queue_url):
        events = provider.platform.events(message["Body"])
        if not events or any(e.unit_id not in ours for e in events):
            continue  # another study's (or a test event): not ours to delete
        for event in events:
            assert event.unit_id is not None
            hit_id = ours[event.unit_id]
            if event.topic is EventTopic.SUBMISSION:
                assert event.assignment_id is not None
                submission = provider.submission(event.assignment_id)
                if submission is None:
                    continue
                with session_scope(engine) as session:
                    hit = session.get(Hit, hit_id)
                    assert hit is not None
                    apply_submission(session, study, hit, submission, hooks, report, arms=arms)
            elif event.topic is EventTopic.UNIT:
                unit = provider.unit(event.unit_id)
                with session_scope(engine) as session:
                    hit = session.get(Hit, hit_id)
                    assert hit is not None
                    report.hit_changes += _hit_status(session, hit, unit)
            seen_hits.add(event.unit_id)
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    report.hits = len(seen_hits)
    settle_arms(engine, provider, study, report)
    run_hooks(engine, study, hooks, report)
    return report


def _messages(sqs: Any, queue_url: str) -> Iterator[dict[str, Any]]:
    while True:
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        messages: Sequence[dict[str, Any]] = got.get("Messages", [])
        if not messages:
            return
        yield from messages
