"""The requester API: AWS JSON 1.1 on `POST /`, the operation named by `X-Amz-Target`.

Each call: fault switches, then the operation name, then the body checked against botocore's
model, then the operation in one transaction (which queues any notifications it causes).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, request

from harness.providers.mturk.local_service import (
    ops_account,
    ops_assignments,
    ops_hits,
    ops_qual_types,
    ops_quals,
    ops_workers,
)
from harness.providers.mturk.local_service.api_errors import (
    ApiError,
    SerializationException,
    UnknownOperationException,
)
from harness.providers.mturk.local_service.jsonbody import BodyError, parse_json
from harness.providers.mturk.local_service.service import current_service
from harness.providers.mturk.local_service.state import Ctx
from harness.providers.mturk.local_service.validation import (
    operation_model,
    validate,
    without_nulls,
)

TARGET_PREFIX = "MTurkRequesterServiceV20170117"
CONTENT_TYPE = "application/x-amz-json-1.1"

OPERATIONS: dict[str, Callable[[Ctx, dict[str, Any]], dict[str, Any]]] = {
    **ops_account.OPERATIONS,
    **ops_hits.OPERATIONS,
    **ops_assignments.OPERATIONS,
    **ops_workers.OPERATIONS,
    **ops_qual_types.OPERATIONS,
    **ops_quals.OPERATIONS,
}

bp = Blueprint("requester", __name__)


def reply(status: int, body: dict[str, Any]) -> Response:
    """An answer as AWS's JSON front end sends it: its content type and a request id."""
    return Response(
        json.dumps(body),
        status=status,
        content_type=CONTENT_TYPE,
        headers={"x-amzn-RequestId": str(uuid.uuid4())},
    )


@bp.errorhandler(ApiError)
def refused(exc: ApiError) -> Response:
    """A refused call in MTurk's error shape (other failures: `app._error`)."""
    return reply(exc.status, exc.body(current_service().clock.now_ms()))


def _call(service: Any) -> dict[str, Any]:
    service.faults.check()
    prefix, _, name = request.headers.get("X-Amz-Target", "").partition(".")
    model = operation_model(name) if prefix == TARGET_PREFIX else None
    if model is None or name not in OPERATIONS:
        raise UnknownOperationException(
            f"Operation {request.headers.get('X-Amz-Target', '')!r} is not supported by the "
            "local MTurk service."
        )
    try:
        params = parse_json(request.get_data() or b"{}")
    except BodyError as exc:
        raise SerializationException(f"The request body is refused: {exc}") from exc
    validate(model, params)
    params = without_nulls(params)
    with service.transaction() as ctx:
        return OPERATIONS[name](ctx, params)


@bp.post("/")
def dispatch() -> Response:
    return reply(200, _call(current_service()))
