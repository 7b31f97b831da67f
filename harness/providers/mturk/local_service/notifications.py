"""MTurk event notifications, sent to a local SQS (never a real AWS endpoint).

Messages go to a local SQS only: a moto server (`moto_server -p 9324`), ElasticMQ, or any
SQS-compatible service on this machine. Which one: the endpoint the service was started with
(`--sqs-endpoint-url`, which must be on loopback), whatever host the queue URL (the Destination)
names; otherwise the queue URL's own host, if that is on loopback (a moto server's queue URLs
are). A Destination that is neither is refused when it is set, with a message saying how to
start a local SQS. Messages are signed with placeholder credentials, so the environment's AWS
credentials are never read or sent.

An event is written to an outbox table in the same transaction as the change that caused it, and
sent by the service's delivery thread, never on a request's path, once that transaction commits.
A message that could not be sent is retried after a delay growing from `FIRST_RETRY` seconds
(doubled after each failure, by the service's clock: a frozen clock holds retries back); after
`MAX_TRIES` tries it is given up. `/_control/notifications` lists the messages not delivered
(retrying or given up) and drops them. So delivery is at least once while the queue can be
reached, as on MTurk, and a consumer de-duplicates on `EventDocId`. (This service happens to
deliver in order; MTurk does not promise that.)

Message body, as MTurk sends it to SQS:
`{"Events": [{"EventType", "EventTimestamp", "HITTypeId", "HITId", "AssignmentId"?}],
"EventDocId", "SourceAccount", "CustomerId", "EventDocVersion"}`, one event per message here.
Only the SQS transport is implemented; Email and SNS destinations are refused when set.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from botocore.exceptions import BotoCoreError, ClientError
from sqlalchemy import Connection, Engine, delete, insert, select, update

from harness.platform.local_service import is_loopback
from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import RequestError
from harness.providers.mturk.local_service.state import REQUESTER_ID, Ctx

log = logging.getLogger(__name__)
_QUEUE_REGION = re.compile(r"sqs[.-]([a-z0-9-]+)\.amazonaws\.com")
HOW_TO_START = (
    "start the service with --sqs-endpoint-url http://127.0.0.1:PORT pointing at a local SQS "
    "(for example `moto_server -p 9324` from the moto package)"
)
MAX_TRIES = 6
"""Tries of one message before it is given up (and left for `/_control/notifications`)."""
FIRST_RETRY = 2.0
"""Seconds from a message's first failed try to its retry; doubled after each failure."""


class NotLocalError(ValueError):
    """An SQS endpoint that is not on this machine."""


def check_local_endpoint(url: str) -> str:
    """`url` if it is an http(s) URL on loopback (localhost, 127.0.0.0/8, ::1); else refuse."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not is_loopback(parts.hostname):
        raise NotLocalError(
            f"the SQS endpoint {url!r} is not on this machine: the local MTurk service sends "
            "notifications only to a local SQS (http://127.0.0.1:PORT or http://localhost:PORT), "
            "never to AWS"
        )
    return url


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
    ctx.queued = True
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
    HT = models.hit_types
    row = ctx.conn.execute(
        select(HT.c.id, HT.c.notification)
        .join(models.hits, models.hits.c.hit_type_id == HT.c.id)
        .where(models.hits.c.id == hit_id, HT.c.notification_active.is_(True))
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


def delivery_endpoint(configured: str | None, queue_url: str) -> str | None:
    """The local SQS a message for `queue_url` goes to; None when there is none."""
    if configured is not None:
        return check_local_endpoint(configured)
    parts = urlsplit(queue_url)
    try:
        return check_local_endpoint(f"{parts.scheme}://{parts.netloc}")
    except NotLocalError:
        return None


def refuse_remote(configured: str | None, queue_url: str) -> None:
    """Refuse (as MTurk refuses a request) a Destination this service could not deliver to."""
    if delivery_endpoint(configured, queue_url) is None:
        raise RequestError(
            f"The Destination {queue_url!r} is not on this machine and no local SQS is set: the "
            "local MTurk service delivers notifications only to a local SQS. Either "
            f"{HOW_TO_START}, or give the URL of a queue of a local SQS "
            "(http://127.0.0.1:PORT/...).",
            "AWS.MechanicalTurk.InvalidParameterValue",
        )


class SqsSender:
    """Sends outbox messages to a local SQS; one boto3 client per endpoint and region."""

    def __init__(self, endpoint_url: str | None) -> None:
        self.endpoint_url = None if endpoint_url is None else check_local_endpoint(endpoint_url)
        self._clients: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def client(self, endpoint: str, queue_url: str) -> Any:
        import boto3
        from botocore.config import Config

        match = _QUEUE_REGION.search(queue_url)
        key = (check_local_endpoint(endpoint), match.group(1) if match else "us-east-1")
        with self._lock:
            if key not in self._clients:
                self._clients[key] = boto3.session.Session().client(
                    "sqs",
                    region_name=key[1],
                    endpoint_url=key[0],
                    aws_access_key_id="local",
                    aws_secret_access_key="local",
                    config=Config(
                        retries={"total_max_attempts": 1},
                        connect_timeout=2,
                        read_timeout=5,
                    ),
                )
            return self._clients[key]

    def send(self, queue_url: str, body: str) -> None:
        endpoint = delivery_endpoint(self.endpoint_url, queue_url)
        if endpoint is None:  # a Destination set before this service refused remote ones
            raise NotLocalError(f"{queue_url!r} is not a queue of a local SQS: {HOW_TO_START}")
        self.client(endpoint, queue_url).send_message(QueueUrl=queue_url, MessageBody=body)


def _waiting() -> Any:
    outbox = models.outbox
    return outbox.c.delivered.is_(False) & outbox.c.gave_up.is_(False)


def deliver_pending(
    engine: Engine, sender: SqsSender, lock: Any, now: float, due_only: bool = True
) -> int:
    """Try to send the undelivered messages once each: those due (new ones, and retries whose
    time has come), or with ``due_only`` false every one not given up; how many went out.

    A failure is recorded on its message: the try, the error, and when to try again (or that
    it is given up after `MAX_TRIES`). Reading and marking the outbox happen under the
    service's transaction lock; sending does not, so other requests go on meanwhile.
    """
    outbox = models.outbox
    chosen = _waiting()
    if due_only:
        chosen &= outbox.c.next_try <= now  # 0 until a first try fails
    with engine.connect() as conn, lock, conn.begin():
        rows = conn.execute(select(outbox).where(chosen).order_by(outbox.c.seq)).all()
    sent = 0
    for row in rows:
        tries = row.attempts + 1
        values: dict[str, Any] = {"attempts": tries}
        try:
            sender.send(row.destination, row.body)
            values["delivered"] = True
            sent += 1
        except (BotoCoreError, ClientError, NotLocalError) as exc:
            given_up = tries >= MAX_TRIES
            values.update(
                last_error=str(exc)[:500],
                gave_up=given_up,
                next_try=now + FIRST_RETRY * 2 ** (tries - 1),
            )
            fate = "given up" if given_up else "will retry"
            log.warning(
                "notification %s to %s not delivered (try %d, %s): %s",
                row.seq,
                row.destination,
                tries,
                fate,
                exc,
            )
        with engine.connect() as conn, lock, conn.begin():
            conn.execute(update(outbox).where(outbox.c.seq == row.seq).values(**values))
    return sent


def has_waiting(engine: Engine) -> bool:
    """Whether a message is still to be sent: new, or failed and to be tried again."""
    outbox = models.outbox
    with engine.connect() as conn, conn.begin():
        found = conn.execute(select(outbox.c.seq).where(_waiting()).limit(1)).first()
    return found is not None


def undelivered(conn: Connection) -> list[dict[str, Any]]:
    """Every message not delivered, oldest first: retrying, or given up."""
    outbox = models.outbox
    rows = conn.execute(
        select(outbox).where(outbox.c.delivered.is_(False)).order_by(outbox.c.seq)
    ).all()
    return [
        {
            "seq": row.seq,
            "destination": row.destination,
            "created": row.created,
            "attempts": row.attempts,
            "state": "given up" if row.gave_up else "retrying" if row.attempts else "new",
            "next_try": None if row.gave_up or not row.attempts else row.next_try,
            "last_error": row.last_error,
        }
        for row in rows
    ]


def drop_undelivered(conn: Connection, seq: int | None = None) -> int:
    """Delete the undelivered messages (``seq``: that one only); how many were."""
    outbox = models.outbox
    dropping = delete(outbox).where(outbox.c.delivered.is_(False))
    if seq is not None:
        dropping = dropping.where(outbox.c.seq == seq)
    return conn.execute(dropping).rowcount
