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
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

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
        "NumberOfAssignmentsAvailable": lifecycle.counts(hit).available(hit.max_assignments),
        "AssignmentDurationInSeconds": hit.ht_assignment_duration,
        "Expiration": hit.expiration,
        "canPreview": level >= 2,
        "canAccept": level >= 3 and held is None,
    }
    if held is not None:
        out["heldAssignmentId"] = held
    return out


def _held(ctx: Ctx, worker_id: str, hit_id: str) -> str | None:
    """The worker's live assignment of this HIT (one per worker per HIT), if any."""
    return ctx.conn.execute(
        select(A.c.id).where(A.c.worker_id == worker_id, A.c.hit_id == hit_id, lifecycle.LIVE)
    ).scalar()


def _open_hits(ctx: Ctx, worker_id: str, after: int | None, size: int) -> list[Any]:
    """Up to `size` HITs the worker may take, in creation order after position `after` (the
    `ix_hits_open` index), each with the worker's live assignment of it if any (`held`)."""
    query = (
        hit_query()
        .add_columns(A.c.id.label("held"))
        .outerjoin(A, (A.c.hit_id == H.c.id) & (A.c.worker_id == worker_id) & lifecycle.LIVE)
        .where(lifecycle.HAS_FREE_SLOT, H.c.expiration > ctx.now)
        .order_by(H.c.seq)
        .limit(size)
    )
    if after is not None:
        query = query.where(H.c.seq > after)
    return list(ctx.conn.execute(query))


def _listing(
    ctx: Ctx, worker_id: str, after: int | None, size: int, only_acceptable: bool
) -> dict[str, Any]:
    """The worker's page of HITs (see `list_hits`) and the NextToken after it."""
    out: list[dict[str, Any]] = []
    if not blocked(ctx, worker_id):
        view = worker_view(ctx.conn, worker_id)
        while len(out) < size:
            rows = _open_hits(ctx, worker_id, after, size)
            for hit in rows:
                after = hit.seq
                level = allowed(view, json.loads(hit.ht_requirements))
                summary = _summary(hit, level, hit.held)
                if level >= 1 and (summary["canAccept"] or not only_acceptable):
                    out.append(summary)
                    if len(out) == size:
                        break
            if len(rows) < size:
                break  # no open HIT after these
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
    """The question as the worker's page shows it (built outside the transaction: the request
    and the HIT's question, which never changes, are all it needs)."""
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


def _worker_level(ctx: Ctx, worker_id: str, hit: Any) -> int:
    """What the worker may do with the HIT (`allowed`; nothing when blocked)."""
    if blocked(ctx, worker_id):
        return 0
    return allowed(worker_view(ctx.conn, worker_id), json.loads(hit.ht_requirements))


@bp.get("/worker/hits/<hit_id>")
def preview(hit_id: str) -> Response:
    stated = stated_profile(params())
    with current_service().transaction() as ctx:
        hit, summary = _preview(ctx, record_worker(ctx, stated), hit_id)
    return jsonify(summary | _question_view(hit, PREVIEW_ASSIGNMENT, None))


def _preview(ctx: Ctx, worker_id: str, hit_id: str) -> tuple[Any, dict[str, Any]]:
    """The HIT and its summary for a worker allowed to preview it."""
    hit = _hit(ctx, hit_id)
    level = _worker_level(ctx, worker_id, hit)
    if level < 2:
        raise WorkerError(403, "NotQualified", f"worker {worker_id} may not preview {hit_id}")
    held = _held(ctx, worker_id, hit.id)
    return hit, _summary(hit, level, held)


@bp.post("/worker/hits/<hit_id>/accept")
def accept(hit_id: str) -> Response:
    """Take one assignment: one per worker per HIT (returned or abandoned ones do not count).

    Under the write lock only the transaction: the parameters are checked and the new id drawn
    before it, the question view built after it. The checks that decide (the worker's profile,
    block, qualifications and live assignments, the HIT and its type) are read inside it, so a
    block or a revoked qualification committed before the accept's turn refuses it as before;
    the slot and the one live assignment per worker and HIT are decided by the database.
    """
    stated = stated_profile(params())
    assignment_id = new_id()
    service = current_service()
    with service.transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        hit = _hit(ctx, hit_id)
        if blocked(ctx, worker_id):
            raise WorkerError(403, "WorkerBlocked", f"worker {worker_id} is blocked")
        if allowed(worker_view(ctx.conn, worker_id), json.loads(hit.ht_requirements)) < 3:
            raise WorkerError(
                403, "NotQualified", f"worker {worker_id} does not meet the requirements"
            )
        held = _held(ctx, worker_id, hit.id)
        if held is not None:
            raise WorkerError(
                409, "AlreadyAccepted", f"worker {worker_id} already has assignment {held}"
            )
        deadline = ctx.now + hit.ht_assignment_duration
        # The database decides: a slot is taken only if one is free, and a second live
        # assignment of the same worker and HIT breaks a unique index (the transaction is
        # then rolled back whole).
        if not lifecycle.take_slot(ctx, hit.id):
            raise WorkerError(
                409, "NotAssignable", f"HIT {hit_id} is {lifecycle.status(hit, ctx.now)}"
            )
        try:
            lifecycle.add_assignment(
                ctx,
                id=assignment_id,
                hit_id=hit.id,
                worker_id=worker_id,
                accept_time=ctx.now,
                deadline=deadline,
            )
        except IntegrityError as exc:
            raise WorkerError(
                409, "AlreadyAccepted", f"worker {worker_id} already has an assignment of {hit_id}"
            ) from exc
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
    # Built before the write lock: the answer of any question but a crowd-form one.
    plain = answer_xml(answers_for(False, fields))
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
            answer=answer_xml(answers_for(True, fields)) if crowd_form else plain,
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
