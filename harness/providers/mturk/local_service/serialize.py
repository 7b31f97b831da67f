"""Rows to MTurk's JSON shapes, and NextToken/MaxResults pagination.

Timestamps go out as epoch seconds, as the JSON protocol carries them; amounts as strings.

Pagination: results in creation order; MaxResults defaults to 10 (chosen). NextToken comes with
every page that has results and points past its last item; the page after the last one is
empty and has no NextToken. That is what MTurk did: Mephisto's `get_outstanding_hits` (and
ParlAI's before it) reads `NextToken` from every non-empty ListHITs page and stops at the first
empty one, which would fail on a last page without it, and the ListReviewableHITs reply quoted
in aws/aws-sdk-js#2522 carries a NextToken with NumResults 1. Clients that stop when NextToken
is missing (boto3's paginators, Dallinger) make one extra call and see the empty page. Tokens
hold the position after the last item (keyset paging), so rows added meanwhile are not skipped
or repeated.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Select, select

from harness.providers.mturk.local_service import lifecycle, models
from harness.providers.mturk.local_service.api_errors import ParameterValidationError

DEFAULT_PAGE = 10
H = models.hits
HT = models.hit_types
# The HIT type's columns a HIT's JSON needs, read with the HIT in one query.
HIT_TYPE_COLUMNS = (
    HT.c.title.label("ht_title"),
    HT.c.description.label("ht_description"),
    HT.c.keywords.label("ht_keywords"),
    HT.c.assignment_duration.label("ht_assignment_duration"),
    HT.c.auto_approval_delay.label("ht_auto_approval_delay"),
    HT.c.qualification_requirements.label("ht_requirements"),
)


def _bad_token(token: object) -> ParameterValidationError:
    return ParameterValidationError(
        f'The value "{token}" is not valid for the parameter NextToken.',
        "AWS.MechanicalTurk.ParameterValidationError",
    )


def encode_token(after: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": after}).encode()).decode()


def decode_token(token: str | None) -> int | None:
    """The position a NextToken points after, or None for the first page."""
    if token is None:
        return None
    try:
        after = json.loads(base64.urlsafe_b64decode(token.encode()))["after"]
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise _bad_token(token) from exc
    if isinstance(after, bool) or not isinstance(after, int) or abs(after) > 2**62:
        raise _bad_token(token)
    return after


def page_size(params: dict[str, Any]) -> int:
    return int(params.get("MaxResults") or DEFAULT_PAGE)


def keyed_page(
    conn: Connection, query: Select[Any], key: Any, params: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """One page of `query` ordered by the integer column `key`, with NumResults/NextToken."""
    after = decode_token(params.get("NextToken"))
    if after is not None:
        query = query.where(key > after)
    rows = list(conn.execute(query.order_by(key).limit(page_size(params))).all())
    return rows, _extra(rows, lambda r: getattr(r, key.name))


def list_page(
    items: Sequence[Any], key_of: Callable[[Any], int], params: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """One page of `items` (already in key order), for lists filtered in Python."""
    after = decode_token(params.get("NextToken"))
    chosen = [i for i in items if after is None or key_of(i) > after][: page_size(params)]
    return chosen, _extra(chosen, key_of)


def _extra(page: Sequence[Any], key_of: Callable[[Any], int]) -> dict[str, Any]:
    extra: dict[str, Any] = {"NumResults": len(page)}
    if page:
        extra["NextToken"] = encode_token(key_of(page[-1]))
    return extra


def hit_query() -> Select[Any]:
    """HIT rows with their counts and the columns of their HIT type that `hit_json` needs."""
    return select(H, *lifecycle.COUNT_COLUMNS, *HIT_TYPE_COLUMNS).join(
        HT, HT.c.id == H.c.hit_type_id
    )


def hit_json(hit: Any, now: float) -> dict[str, Any]:
    """A row of `hit_query()` as MTurk's HIT structure."""
    out: dict[str, Any] = {
        "HITId": hit.id,
        "HITTypeId": hit.hit_type_id,
        "HITGroupId": hit.hit_type_id,
        "CreationTime": hit.created,
        "Title": hit.ht_title,
        "Description": hit.ht_description,
        "Question": hit.question,
        "HITStatus": lifecycle.status(hit, now),
        "MaxAssignments": hit.max_assignments,
        "Reward": hit.reward,
        "AutoApprovalDelayInSeconds": hit.ht_auto_approval_delay,
        "Expiration": hit.expiration,
        "AssignmentDurationInSeconds": hit.ht_assignment_duration,
        "QualificationRequirements": json.loads(hit.ht_requirements),
        "HITReviewStatus": hit.review_status,
        "NumberOfAssignmentsPending": hit.n_pending,
        "NumberOfAssignmentsAvailable": lifecycle.available(hit),
        "NumberOfAssignmentsCompleted": hit.n_completed,
    }
    if hit.ht_keywords is not None:
        out["Keywords"] = hit.ht_keywords
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
