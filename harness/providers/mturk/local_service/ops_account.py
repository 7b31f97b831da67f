"""Requester operations on the account and on notification settings."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import RequestError
from harness.providers.mturk.local_service.notifications import enqueue, iso, refuse_remote
from harness.providers.mturk.local_service.state import Ctx, balance
from harness.providers.mturk.pricing import format_amount

HT = models.hit_types


def get_account_balance(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return {"AvailableBalance": format_amount(balance(ctx.conn))}


def _check_spec(ctx: Ctx, spec: dict[str, Any]) -> None:
    if spec["Transport"] != "SQS":
        raise RequestError(
            f"The {spec['Transport']} transport is not supported by the local MTurk service; "
            "use SQS.",
            "AWS.MechanicalTurk.InvalidTransport",
        )
    if not spec["Destination"].startswith(("https://", "http://")):
        raise RequestError(
            f"The Destination {spec['Destination']!r} is not an SQS queue URL.",
            "AWS.MechanicalTurk.InvalidParameterValue",
        )
    refuse_remote(ctx.sqs_endpoint, spec["Destination"])


def update_notification_settings(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Set or change a HIT type's notification, and/or switch it on or off.

    Giving a Notification without Active turns it on (chosen); Active alone toggles an existing one.
    """
    ht = ctx.conn.execute(select(HT).where(HT.c.id == p["HITTypeId"])).first()
    if ht is None:
        raise RequestError(
            f"HITType {p['HITTypeId']} does not exist.", "AWS.MechanicalTurk.HITTypeDoesNotExist"
        )
    values: dict[str, Any] = {}
    if "Notification" in p:
        _check_spec(ctx, p["Notification"])
        values["notification"] = json.dumps(p["Notification"])
        values["notification_active"] = p.get("Active", True)
    elif "Active" in p:
        if ht.notification is None:
            raise RequestError(
                f"HITType {ht.id} has no notification to switch on or off.",
                "AWS.MechanicalTurk.InvalidParameterValue",
            )
        values["notification_active"] = p["Active"]
    if values:
        ctx.conn.execute(update(HT).where(HT.c.id == ht.id).values(**values))
    return {}


def send_test_event_notification(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    spec = p["Notification"]
    _check_spec(ctx, spec)
    event = {
        "EventType": p["TestEventType"],
        "EventTimestamp": iso(ctx.now),
        "HITTypeId": "TESTHITTYPEID000000000000000000",
        "HITId": "TESTHITID00000000000000000000",
        "AssignmentId": "TESTASSIGNMENTID0000000000000",
    }
    enqueue(ctx, spec, event)
    return {}


OPERATIONS = {
    "GetAccountBalance": get_account_balance,
    "UpdateNotificationSettings": update_notification_settings,
    "SendTestEventNotification": send_test_event_notification,
}
