"""Requester operations on assignments and bonuses."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select

from harness.providers.mturk import pricing
from harness.providers.mturk.local_service import lifecycle, models
from harness.providers.mturk.local_service.api_errors import (
    RequestError,
    amount,
    check_length,
    invalid_value,
)
from harness.providers.mturk.local_service.lookups import (
    VISIBLE,
    get_assignment,
    get_hit,
    remember_token,
    seen_token,
)
from harness.providers.mturk.local_service.notifications import queue_event
from harness.providers.mturk.local_service.serialize import assignment_json, hit_json, keyed_page
from harness.providers.mturk.local_service.state import Ctx, charge, refund

A = models.assignments
B = models.bonuses
MAX_FEEDBACK = 1024
OVERRIDE_WINDOW = 30 * 24 * 3600  # MTurk: rejections can be overridden within 30 days


def list_assignments_for_hit(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    hit = get_hit(ctx, p["HITId"])
    statuses = p.get("AssignmentStatuses") or list(VISIBLE)
    query = select(A).where(A.c.hit_id == hit.id, A.c.status.in_(statuses))
    page, extra = keyed_page(ctx.conn, query, A.c.seq, p)
    return {"Assignments": [assignment_json(a) for a in page], **extra}


def get_assignment_op(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    a = get_assignment(ctx, p["AssignmentId"])
    return {"Assignment": assignment_json(a), "HIT": hit_json(get_hit(ctx, a.hit_id), ctx.now)}


def _not_submitted(a: Any) -> RequestError:
    return RequestError(
        f"This operation can be called with a status of: Submitted (assignment {a.id} is "
        f"{a.status}).",
        "AWS.MechanicalTurk.InvalidAssignmentState",
    )


def approve_assignment(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    a = get_assignment(ctx, p["AssignmentId"])
    check_length(p, "RequesterFeedback", MAX_FEEDBACK)
    if a.status == "Rejected" and p.get("OverrideRejection"):
        if ctx.now - a.rejection_time > OVERRIDE_WINDOW:
            raise RequestError(
                "A rejection can be overridden only within 30 days of it.",
                "AWS.MechanicalTurk.InvalidAssignmentState",
            )
        hit = get_hit(ctx, a.hit_id)
        charge(ctx.conn, Decimal(hit.reward) + Decimal(hit.fee))
    elif a.status != "Submitted":
        raise _not_submitted(a)
    feedback = p.get("RequesterFeedback")
    lifecycle.set_status(ctx, a, "Approved", approval_time=ctx.now, requester_feedback=feedback)
    queue_event(ctx, a.hit_id, "AssignmentApproved", a.id)
    return {}


def reject_assignment(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    a = get_assignment(ctx, p["AssignmentId"])
    check_length(p, "RequesterFeedback", MAX_FEEDBACK)
    if a.status != "Submitted":
        raise _not_submitted(a)
    hit = get_hit(ctx, a.hit_id)
    refund(ctx.conn, Decimal(hit.reward) + Decimal(hit.fee))
    feedback = p.get("RequesterFeedback")
    lifecycle.set_status(ctx, a, "Rejected", rejection_time=ctx.now, requester_feedback=feedback)
    queue_event(ctx, a.hit_id, "AssignmentRejected", a.id)
    return {}


def send_bonus(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    token = p.get("UniqueRequestToken")
    done = seen_token(ctx, "bonus", token)
    if done is not None:
        # MTurk documents only that the message holds the first request's id.
        raise RequestError(
            f"The bonus with UniqueRequestToken {token} was already paid. ({done})",
            "AWS.MechanicalTurk.DuplicateRequest",
        )
    bonus = amount(p, "BonusAmount")
    if bonus <= 0:
        raise invalid_value(p["BonusAmount"], "BonusAmount", "It must be greater than 0.")
    a = get_assignment(ctx, p["AssignmentId"])
    if a.worker_id != p["WorkerId"]:
        raise RequestError(
            f"Assignment {a.id} was not done by worker {p['WorkerId']}.",
            "AWS.MechanicalTurk.InvalidParameterValue",
        )
    charge(ctx.conn, pricing.bonus_cost(bonus))
    result = ctx.conn.execute(
        insert(B).values(
            worker_id=a.worker_id,
            assignment_id=a.id,
            hit_id=a.hit_id,
            amount=pricing.format_amount(bonus),
            reason=p["Reason"],
            grant_time=ctx.now,
        )
    )
    key = result.inserted_primary_key
    remember_token(ctx, "bonus", token, f"bonus {key[0] if key else ''}")
    return {}


def list_bonus_payments(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    query = select(B)
    if "HITId" in p:
        get_hit(ctx, p["HITId"])
        query = query.where(B.c.hit_id == p["HITId"])
    elif "AssignmentId" in p:
        get_assignment(ctx, p["AssignmentId"])
        query = query.where(B.c.assignment_id == p["AssignmentId"])
    else:
        raise RequestError("Either HITId or AssignmentId must be given.")
    page, extra = keyed_page(ctx.conn, query, B.c.seq, p)
    payments = [
        {
            "WorkerId": b.worker_id,
            "BonusAmount": b.amount,
            "AssignmentId": b.assignment_id,
            "Reason": b.reason,
            "GrantTime": b.grant_time,
        }
        for b in page
    ]
    return {"BonusPayments": payments, **extra}


OPERATIONS = {
    "ListAssignmentsForHIT": list_assignments_for_hit,
    "GetAssignment": get_assignment_op,
    "ApproveAssignment": approve_assignment,
    "RejectAssignment": reject_assignment,
    "SendBonus": send_bonus,
    "ListBonusPayments": list_bonus_payments,
}
