"""The worker side: plain HTTP that simulated (or human) workers use to find and do work.

Every call names the worker with `workerId` (query string, form field or JSON member; MTurk's
format, `A` then capitals and digits). A worker may also state a profile, kept for later calls:
`country`, `subdivision` (ISO codes), `percentApproved`, `numberApproved` (otherwise computed
from this service's history), `master` and `adult` (whether the worker holds Masters and
Worker_Adult; nobody does unless they say so).

GET  /worker/hits                      HITs the worker may discover, with canPreview/canAccept;
                                       pages of `maxResults` (default 20) with `nextToken`;
                                       `acceptable=1` lists only HITs the worker can accept now
GET  /worker/hits/<HITId>              preview (403 when a requirement guards previewing)
POST /worker/hits/<HITId>/accept       take an assignment; returns the question to show
POST /worker/assignments/<id>/return   give the assignment back
POST /worker/assignments/<id>/submit   an HTMLQuestion form submission
POST /mturk/externalSubmit             what an ExternalQuestion page posts (assignmentId + fields)
GET  /worker/messages                  messages sent to the worker (NotifyWorkers, grants)

Errors are JSON `{"error": message, "code": short-code}` with 400, 403, 404 or 409.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import insert, select

from harness.providers.mturk.local_service import lifecycle, models
from harness.providers.mturk.local_service.notifications import queue_event
from harness.providers.mturk.local_service.qualifications import allowed, worker_view
from harness.providers.mturk.local_service.questions import (
    answer_xml,
    answers_for,
    external_url_for,
    parse_question,
)
from harness.providers.mturk.local_service.serialize import encode_token, hit_query
from harness.providers.mturk.local_service.service import current_service
from harness.providers.mturk.local_service.state import Ctx, new_id
from harness.providers.mturk.local_service.worker_params import (
    WorkerError,
    blocked,
    flag,
    integer,
    next_token,
    params,
    record_worker,
    stated_profile,
    worker_error_response,
)

bp = Blueprint("worker", __name__)
bp.register_error_handler(WorkerError, worker_error_response)
A = models.assignments
H = models.hits
PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
DEFAULT_PAGE, MOST_PAGE = 20, 1000
# Characters XML 1.0 cannot carry, even as references: an answer holding one is refused.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _summary(hit: Any, level: int, held: str | None) -> dict[str, Any]:
    out = {
        "HITId": hit.id,
        "HITTypeId": hit.hit_type_id,
        "Title": hit.ht_title,
        "Description": hit.ht_description,
        "Keywords": hit.ht_keywords,
        "Reward": hit.reward,
        "MaxAssignments": hit.max_assignments,
        "NumberOfAssignmentsAvailable": lifecycle.available(hit),
        "AssignmentDurationInSeconds": hit.ht_assignment_duration,
        "Expiration": hit.expiration,
        "canPreview": level >= 2,
        "canAccept": level >= 3 and held is None,
    }
    if held is not None:
        out["heldAssignmentId"] = held
    return out


def _held(ctx: Ctx, worker_id: str) -> dict[str, str]:
    """The worker's live assignments (one per worker per HIT), by HIT id."""
    rows = ctx.conn.execute(
        select(A.c.hit_id, A.c.id).where(A.c.worker_id == worker_id, A.c.status.in_(lifecycle.LIVE))
    )
    return dict(rows.all())


def _listing(
    ctx: Ctx, worker_id: str, after: int | None, size: int, only_acceptable: bool
) -> dict[str, Any]:
    """The worker's page of HITs (see `list_hits`) and the NextToken after it."""
    out: list[dict[str, Any]] = []
    if not blocked(ctx, worker_id):
        view = worker_view(ctx.conn, worker_id)
        held = _held(ctx, worker_id)
        query = hit_query().where(H.c.disposed.is_(False), H.c.expiration > ctx.now)
        if after is not None:
            query = query.where(H.c.seq > after)
        for hit in ctx.conn.execute(query.order_by(H.c.seq)):
            if lifecycle.status(hit, ctx.now) != "Assignable":
                continue
            level = allowed(view, json.loads(hit.ht_requirements))
            summary = _summary(hit, level, held.get(hit.id))
            if level >= 1 and (summary["canAccept"] or not only_acceptable):
                out.append(summary)
                after = hit.seq
                if len(out) == size:
                    break
    body: dict[str, Any] = {"HITs": out}
    if out and after is not None:
        body["NextToken"] = encode_token(after)
    return body


@bp.get("/worker/hits")
def list_hits() -> Response:
    values = params()
    size = integer(values, "maxResults", 1, MOST_PAGE) or DEFAULT_PAGE
    after = next_token(values)
    only_acceptable = bool(flag(values, "acceptable"))
    stated = stated_profile(values)
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        body = _listing(ctx, worker_id, after, size, only_acceptable)
    return jsonify(body)


def _question_view(hit: Any, assignment_id: str, worker_id: str | None) -> dict[str, Any]:
    """The question as the worker's page shows it."""
    question = parse_question(hit.question)
    view: dict[str, Any] = {"QuestionType": question.kind, "FrameHeight": question.frame_height}
    submit_to = request.host_url.rstrip("/")
    if question.external_url is not None:
        view["ExternalURL"] = external_url_for(
            question, assignment_id, hit.id, worker_id, submit_to
        )
    elif question.html is not None:
        view["HTMLContent"] = question.html
    else:
        view["Question"] = hit.question
    view["SubmitURL"] = f"{submit_to}/mturk/externalSubmit"
    return view


def _hit(ctx: Ctx, hit_id: str) -> Any:
    row = ctx.conn.execute(hit_query().where(H.c.id == hit_id, H.c.disposed.is_(False))).first()
    if row is None:
        raise WorkerError(404, "HITNotFound", f"HIT {hit_id} does not exist")
    return row


@bp.get("/worker/hits/<hit_id>")
def preview(hit_id: str) -> Response:
    stated = stated_profile(params())
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        hit = _hit(ctx, hit_id)
        level = 0  # a blocked worker may do nothing
        if not blocked(ctx, worker_id):
            level = allowed(worker_view(ctx.conn, worker_id), json.loads(hit.ht_requirements))
        if level < 2:
            raise WorkerError(403, "NotQualified", f"worker {worker_id} may not preview {hit_id}")
        summary = _summary(hit, level, _held(ctx, worker_id).get(hit.id))
    return jsonify(summary | _question_view(hit, PREVIEW_ASSIGNMENT, None))


@bp.post("/worker/hits/<hit_id>/accept")
def accept(hit_id: str) -> Response:
    """Take one assignment: one per worker per HIT (returned or abandoned ones do not count).

    The checks that decide (the worker's profile, block, qualifications and live assignments,
    the HIT and its free slots) are read in the same transaction that adds the assignment, so
    a block or a revoked qualification committed before the accept's turn refuses it.
    """
    stated = stated_profile(params())
    assignment_id = new_id()
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        hit = _hit(ctx, hit_id)
        if blocked(ctx, worker_id):
            raise WorkerError(403, "WorkerBlocked", f"worker {worker_id} is blocked")
        if allowed(worker_view(ctx.conn, worker_id), json.loads(hit.ht_requirements)) < 3:
            raise WorkerError(
                403, "NotQualified", f"worker {worker_id} does not meet the requirements"
            )
        held = _held(ctx, worker_id).get(hit.id)
        if held is not None:
            raise WorkerError(
                409, "AlreadyAccepted", f"worker {worker_id} already has assignment {held}"
            )
        hit_status = lifecycle.status(hit, ctx.now)
        if hit_status != "Assignable":
            raise WorkerError(409, "NotAssignable", f"HIT {hit_id} is {hit_status}")
        deadline = ctx.now + hit.ht_assignment_duration
        ctx.conn.execute(
            insert(A).values(
                id=assignment_id,
                hit_id=hit.id,
                worker_id=worker_id,
                status="Accepted",
                accept_time=ctx.now,
                deadline=deadline,
            )
        )
        queue_event(ctx, hit.id, "AssignmentAccepted", assignment_id)
    view = {"AssignmentId": assignment_id, "HITId": hit.id, "Deadline": deadline}
    return jsonify(view | _question_view(hit, assignment_id, worker_id))


def _accepted(ctx: Ctx, assignment_id: str) -> Any:
    row = ctx.conn.execute(select(A).where(A.c.id == assignment_id)).first()
    if row is None:
        raise WorkerError(404, "AssignmentNotFound", f"assignment {assignment_id} does not exist")
    if row.status != "Accepted":
        raise WorkerError(409, "NotAccepted", f"assignment {assignment_id} is {row.status}")
    return row


@bp.post("/worker/assignments/<assignment_id>/return")
def return_assignment(assignment_id: str) -> Response:
    service = current_service()
    with service.transaction() as ctx:
        a = _accepted(ctx, assignment_id)
        lifecycle.set_status(ctx, a, "Returned")
        queue_event(ctx, a.hit_id, "AssignmentReturned", a.id)
        lifecycle.check_reviewable(ctx, a.hit_id)
    return jsonify(AssignmentId=assignment_id, AssignmentStatus="Returned")


def _form_fields() -> list[tuple[str, str]]:
    fields = list(request.form.items(multi=True))
    for name, value in fields:
        if NOT_XML.search(name) or NOT_XML.search(value):
            raise WorkerError(
                400, "BadAnswer", f"the answer field {name[:40]!r} holds a control character"
            )
    return fields


def _submit(assignment_id: str | None, fields: list[tuple[str, str]]) -> Response:
    if not assignment_id:
        raise WorkerError(400, "MissingAssignmentId", "assignmentId is required")
    service = current_service()
    with service.transaction() as ctx:
        a = _accepted(ctx, assignment_id)
        hit = ctx.conn.execute(hit_query().where(H.c.id == a.hit_id)).one()
        crowd_form = parse_question(hit.question).uses_crowd_form
        lifecycle.set_status(
            ctx,
            a,
            "Submitted",
            submit_time=ctx.now,
            auto_approval_time=ctx.now + hit.ht_auto_approval_delay,
            answer=answer_xml(answers_for(crowd_form, fields)),
        )
        queue_event(ctx, a.hit_id, "AssignmentSubmitted", a.id)
        lifecycle.check_reviewable(ctx, a.hit_id)
    return jsonify(AssignmentId=assignment_id, AssignmentStatus="Submitted")


@bp.post("/worker/assignments/<assignment_id>/submit")
def submit(assignment_id: str) -> Response:
    return _submit(assignment_id, _form_fields())


@bp.post("/mturk/externalSubmit")
def external_submit() -> Response:
    return _submit(request.form.get("assignmentId"), _form_fields())


@bp.get("/worker/messages")
def messages() -> Response:
    stated = stated_profile(params())
    M = models.worker_messages
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        rows = ctx.conn.execute(select(M).where(M.c.worker_id == worker_id).order_by(M.c.seq))
        out = [{"Subject": m.subject, "MessageText": m.text, "SentTime": m.created} for m in rows]
    return jsonify(Messages=out)
