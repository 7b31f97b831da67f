"""Rows to MTurk's JSON shapes, and NextToken/MaxResults pagination.

Timestamps go out as epoch seconds, as the JSON protocol carries them; amounts as strings.
Pagination (chosen where MTurk does not document it): results in creation order; MaxResults
defaults to 10; NextToken is an opaque token of the next offset, present only while more
results remain.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from harness.platform.mturk_local import lifecycle, models
from harness.platform.mturk_local.api_errors import ParameterValidationError
from harness.platform.mturk_local.state import Ctx

DEFAULT_PAGE = 10


def paginate(items: Sequence[Any], params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Slice `items` for this page; return it with NextToken (if any) and NumResults."""
    offset = 0
    token = params.get("NextToken")
    if token is not None:
        try:
            offset = int(json.loads(base64.urlsafe_b64decode(token.encode()))["offset"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ParameterValidationError(
                f'The value "{token}" is not valid for the parameter NextToken.',
                "AWS.MechanicalTurk.ParameterValidationError",
            ) from exc
    size = params.get("MaxResults") or DEFAULT_PAGE
    page = list(items[offset : offset + size])
    extra: dict[str, Any] = {"NumResults": len(page)}
    if offset + size < len(items):
        raw = json.dumps({"offset": offset + size}).encode()
        extra["NextToken"] = base64.urlsafe_b64encode(raw).decode()
    return page, extra


def hit_json(ctx: Ctx, hit: Any) -> dict[str, Any]:
    ht = ctx.conn.execute(
        select(models.hit_types).where(models.hit_types.c.id == hit.hit_type_id)
    ).one()
    c = lifecycle.counts(ctx.conn, hit.id)
    out: dict[str, Any] = {
        "HITId": hit.id,
        "HITTypeId": hit.hit_type_id,
        "HITGroupId": hit.hit_type_id,
        "CreationTime": hit.created,
        "Title": ht.title,
        "Description": ht.description,
        "Question": hit.question,
        "HITStatus": lifecycle.status(hit, c, ctx.now),
        "MaxAssignments": hit.max_assignments,
        "Reward": hit.reward,
        "AutoApprovalDelayInSeconds": ht.auto_approval_delay,
        "Expiration": hit.expiration,
        "AssignmentDurationInSeconds": ht.assignment_duration,
        "QualificationRequirements": json.loads(ht.qualification_requirements),
        "HITReviewStatus": hit.review_status,
        "NumberOfAssignmentsPending": c.pending,
        "NumberOfAssignmentsAvailable": c.available(hit.max_assignments),
        "NumberOfAssignmentsCompleted": c.completed,
    }
    if ht.keywords is not None:
        out["Keywords"] = ht.keywords
    if hit.annotation is not None:
        out["RequesterAnnotation"] = hit.annotation
    return out


def assignment_json(a: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "AssignmentId": a.id,
        "WorkerId": a.worker_id,
        "HITId": a.hit_id,
        "AssignmentStatus": a.status,
        "AcceptTime": a.accept_time,
        "Deadline": a.deadline,
        "Answer": a.answer,
    }
    for key, column in (
        ("SubmitTime", "submit_time"),
        ("AutoApprovalTime", "auto_approval_time"),
        ("ApprovalTime", "approval_time"),
        ("RejectionTime", "rejection_time"),
        ("RequesterFeedback", "requester_feedback"),
    ):
        if getattr(a, column) is not None:
            out[key] = getattr(a, column)
    return out


def qualification_type_json(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "QualificationTypeId": t.id,
        "CreationTime": t.created,
        "Name": t.name,
        "Description": t.description,
        "QualificationTypeStatus": t.status,
        "IsRequestable": t.test is not None or bool(t.auto_granted),
        "AutoGranted": bool(t.auto_granted),
    }
    for key, column in (
        ("Keywords", "keywords"),
        ("Test", "test"),
        ("AnswerKey", "answer_key"),
        ("TestDurationInSeconds", "test_duration"),
        ("RetryDelayInSeconds", "retry_delay"),
        ("AutoGrantedValue", "auto_granted_value"),
    ):
        if getattr(t, column) is not None:
            out[key] = getattr(t, column)
    return out


def qualification_json(q: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "QualificationTypeId": q.type_id,
        "WorkerId": q.worker_id,
        "GrantTime": q.grant_time,
        "Status": q.status,
    }
    if q.integer_value is not None:
        out["IntegerValue"] = q.integer_value
    return out
