"""MTurk event notifications, sent to Amazon SQS through boto3's SQS client.

An event is written to an outbox table in the same transaction as the change that caused it, and
delivered after that transaction commits; a failed delivery stays in the outbox and is retried
after the next request. So delivery is at least once, as on MTurk, and a consumer de-duplicates
on `EventDocId`. (This service happens to deliver in order; MTurk does not promise that.)

Message body, as MTurk sends it to SQS:
`{"Events": [{"EventType", "EventTimestamp", "HITTypeId", "HITId", "AssignmentId"?}],
"EventDocId", "SourceAccount", "CustomerId", "EventDocVersion"}`, one event per message here.
Only the SQS transport is implemented; Email and SNS destinations are refused when set.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from sqlalchemy import Engine, insert, select, update

from harness.platform.mturk_local import models
from harness.platform.mturk_local.state import REQUESTER_ID, Ctx

log = logging.getLogger(__name__)
_QUEUE_REGION = re.compile(r"sqs[.-]([a-z0-9-]+)\.amazonaws\.com")


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def event_document(spec: dict[str, Any], event: dict[str, Any]) -> str:
    return json.dumps(
        {
            "Events": [event],
            "EventDocId": uuid.uuid4().hex,
            "SourceAccount": REQUESTER_ID,
            "CustomerId": REQUESTER_ID,
            "EventDocVersion": spec.get("Version", "2014-08-15"),
        }
    )


def enqueue(ctx: Ctx, spec: dict[str, Any], event: dict[str, Any]) -> None:
    ctx.conn.execute(
        insert(models.outbox).values(
            destination=spec["Destination"], body=event_document(spec, event), created=ctx.now
        )
    )


def queue_event(
    ctx: Ctx,
    hit_id: str,
    event_type: str,
    assignment_id: str | None = None,
    at: float | None = None,
) -> None:
    """Queue `event_type` for a HIT if its HIT type has an active notification asking for it."""
    row = ctx.conn.execute(
        select(models.hit_types.c.id, models.hit_types.c.notification)
        .join(models.hits, models.hits.c.hit_type_id == models.hit_types.c.id)
        .where(models.hits.c.id == hit_id, models.hit_types.c.notification_active.is_(True))
    ).first()
    if row is None or not row.notification:
        return
    spec = json.loads(row.notification)
    if event_type not in spec.get("EventTypes", []):
        return
    event: dict[str, Any] = {
        "EventType": event_type,
        "EventTimestamp": iso(ctx.now if at is None else at),
        "HITTypeId": row.id,
        "HITId": hit_id,
    }
    if assignment_id is not None:
        event["AssignmentId"] = assignment_id
    enqueue(ctx, spec, event)


class SqsSender:
    """Sends outbox messages with boto3; one SQS client per region, made on first use."""

    def __init__(self, endpoint_url: str | None) -> None:
        self.endpoint_url = endpoint_url
        self._clients: dict[str, Any] = {}

    def client(self, queue_url: str) -> Any:
        match = _QUEUE_REGION.search(queue_url)
        region = match.group(1) if match else "us-east-1"
        if region not in self._clients:
            self._clients[region] = boto3.client(
                "sqs", region_name=region, endpoint_url=self.endpoint_url
            )
        return self._clients[region]

    def send(self, queue_url: str, body: str) -> None:
        self.client(queue_url).send_message(QueueUrl=queue_url, MessageBody=body)


def deliver_pending(engine: Engine, sender: SqsSender) -> int:
    """Send every undelivered message; return how many went out."""
    sent = 0
    with engine.begin() as conn:
        rows = conn.execute(
            select(models.outbox)
            .where(models.outbox.c.delivered.is_(False))
            .order_by(models.outbox.c.seq)
        ).all()
    for row in rows:
        ok = True
        try:
            sender.send(row.destination, row.body)
        except (BotoCoreError, ClientError) as exc:
            log.warning("notification to %s not delivered (will retry): %s", row.destination, exc)
            ok = False
        with engine.begin() as conn:
            conn.execute(
                update(models.outbox)
                .where(models.outbox.c.seq == row.seq)
                .values(delivered=ok, attempts=row.attempts + 1)
            )
        sent += ok
    return sent
