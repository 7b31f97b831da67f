"""The worker side: plain HTTP that simulated (or human) workers use to find and do work.

Every call names the worker with `workerId` (query string, form field or JSON member). A worker
may also state a profile, kept for later calls: `country`, `subdivision` (ISO codes),
`percentApproved`, `numberApproved` (otherwise computed from this service's history).

GET  /worker/hits                      HITs the worker may discover, with canPreview/canAccept
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
from typing import Any

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import insert, select, update

from harness.platform.mturk_local import lifecycle, models
from harness.platform.mturk_local.notifications import queue_event
from harness.platform.mturk_local.qualifications import allowed, worker_view
from harness.platform.mturk_local.questions import (
    answer_xml,
    answers_for,
    external_url_for,
    parse_question,
)
from harness.platform.mturk_local.service import current_service
from harness.platform.mturk_local.state import Ctx, new_id

bp = Blueprint("worker", __name__)
A = models.assignments
H = models.hits
HT = models.hit_types
PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"


class WorkerError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@bp.errorhandler(WorkerError)
def _worker_error(exc: WorkerError) -> tuple[Response, int]:
    return jsonify(error=exc.message, code=exc.code), exc.status


def _args() -> dict[str, Any]:
    values: dict[str, Any] = dict(request.args)
    if request.is_json:
        values.update(request.get_json(silent=True) or {})
    else:
        values.update(request.form)
    return values


def _int(values: dict[str, Any], name: str) -> int | None:
    if values.get(name) in (None, ""):
        return None
    try:
        return int(values[name])
    except (TypeError, ValueError) as exc:
        raise WorkerError(400, "BadParameter", f"{name} must be an integer") from exc


def _worker(ctx: Ctx, values: dict[str, Any]) -> str:
    """The worker id of this call; records (and updates) the worker's profile."""
    worker_id = values.get("workerId")
    if not worker_id:
        raise WorkerError(400, "MissingWorkerId", "workerId is required")
    profile = {
        "country": values.get("country") or None,
        "subdivision": values.get("subdivision") or None,
        "percent_approved": _int(values, "percentApproved"),
        "number_approved": _int(values, "numberApproved"),
    }
    given = {k: v for k, v in profile.items() if v is not None}
    W = models.workers
    if ctx.conn.execute(select(W.c.id).where(W.c.id == worker_id)).first() is None:
        ctx.conn.execute(insert(W).values(id=worker_id, **given))
    elif given:
        ctx.conn.execute(update(W).where(W.c.id == worker_id).values(**given))
    return str(worker_id)


def _blocked(ctx: Ctx, worker_id: str) -> bool:
    B = models.worker_blocks
    return ctx.conn.execute(select(B.c.seq).where(B.c.worker_id == worker_id)).first() is not None


def _level(ctx: Ctx, worker_id: str, ht: Any) -> int:
    if _blocked(ctx, worker_id):
        return 0
    return allowed(worker_view(ctx.conn, worker_id), json.loads(ht.qualification_requirements))


def _summary(ctx: Ctx, hit: Any, ht: Any, level: int) -> dict[str, Any]:
    c = lifecycle.counts(ctx.conn, hit.id)
    return {
        "HITId": hit.id,
        "HITTypeId": hit.hit_type_id,
        "Title": ht.title,
        "Description": ht.description,
        "Keywords": ht.keywords,
        "Reward": hit.reward,
        "MaxAssignments": hit.max_assignments,
        "NumberOfAssignmentsAvailable": c.available(hit.max_assignments),
        "AssignmentDurationInSeconds": ht.assignment_duration,
        "Expiration": hit.expiration,
        "canPreview": level >= 2,
        "canAccept": level >= 3,
    }


def _hit(ctx: Ctx, hit_id: str) -> tuple[Any, Any]:
    row = ctx.conn.execute(select(H).where(H.c.id == hit_id, H.c.disposed.is_(False))).first()
    if row is None:
        raise WorkerError(404, "HITNotFound", f"HIT {hit_id} does not exist")
    ht = ctx.conn.execute(select(HT).where(HT.c.id == row.hit_type_id)).one()
    return row, ht


@bp.get("/worker/hits")
def list_hits() -> Response:
    values = _args()
    with current_service().transaction(request.host_url) as ctx:
        worker_id = _worker(ctx, values)
        out = []
        for hit in ctx.conn.execute(select(H).where(H.c.disposed.is_(False)).order_by(H.c.seq)):
            if lifecycle.status(hit, lifecycle.counts(ctx.conn, hit.id), ctx.now) != "Assignable":
                continue
            ht = ctx.conn.execute(select(HT).where(HT.c.id == hit.hit_type_id)).one()
            level = _level(ctx, worker_id, ht)
            if level >= 1:
                out.append(_summary(ctx, hit, ht, level))
    return jsonify(HITs=out)


def _question_view(ctx: Ctx, hit: Any, assignment_id: str, worker_id: str | None) -> dict:
    question = parse_question(hit.question)
    view: dict[str, Any] = {"QuestionType": question.kind, "FrameHeight": question.frame_height}
    submit_to = ctx.host_url.rstrip("/")
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


@bp.get("/worker/hits/<hit_id>")
def preview(hit_id: str) -> Response:
    values = _args()
    with current_service().transaction(request.host_url) as ctx:
        worker_id = _worker(ctx, values)
        hit, ht = _hit(ctx, hit_id)
        level = _level(ctx, worker_id, ht)
        if level < 2:
            raise WorkerError(403, "NotQualified", f"worker {worker_id} may not preview {hit_id}")
        view = _summary(ctx, hit, ht, level) | _question_view(ctx, hit, PREVIEW_ASSIGNMENT, None)
    return jsonify(view)


@bp.post("/worker/hits/<hit_id>/accept")
def accept(hit_id: str) -> Response:
    """Take one assignment: one per worker per HIT (returned or abandoned ones do not count)."""
    values = _args()
    service = current_service()
    with service.transaction(request.host_url) as ctx:
        worker_id = _worker(ctx, values)
        hit, ht = _hit(ctx, hit_id)
        if _blocked(ctx, worker_id):
            raise WorkerError(403, "WorkerBlocked", f"worker {worker_id} is blocked")
        if _level(ctx, worker_id, ht) < 3:
            raise WorkerError(
                403, "NotQualified", f"worker {worker_id} does not meet the requirements"
            )
        held = ctx.conn.execute(
            select(A.c.id).where(
                A.c.hit_id == hit_id,
                A.c.worker_id == worker_id,
                A.c.status.in_(lifecycle.LIVE_STATUSES),
            )
        ).first()
        if held is not None:
            raise WorkerError(
                409, "AlreadyAccepted", f"worker {worker_id} already has assignment {held.id}"
            )
        state = lifecycle.status(hit, lifecycle.counts(ctx.conn, hit_id), ctx.now)
        if state != "Assignable":
            raise WorkerError(409, "NotAssignable", f"HIT {hit_id} is {state}")
        assignment_id = new_id()
        deadline = ctx.now + ht.assignment_duration
        ctx.conn.execute(
            insert(A).values(
                id=assignment_id,
                hit_id=hit_id,
                worker_id=worker_id,
                status="Accepted",
                accept_time=ctx.now,
                deadline=deadline,
            )
        )
        queue_event(ctx, hit_id, "AssignmentAccepted", assignment_id)
        view = {"AssignmentId": assignment_id, "HITId": hit_id, "Deadline": deadline}
        view |= _question_view(ctx, hit, assignment_id, worker_id)
    service.deliver()
    return jsonify(view)


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
    with service.transaction(request.host_url) as ctx:
        a = _accepted(ctx, assignment_id)
        ctx.conn.execute(update(A).where(A.c.id == a.id).values(status="Returned"))
        queue_event(ctx, a.hit_id, "AssignmentReturned", a.id)
        lifecycle.check_reviewable(ctx, ctx.conn.execute(select(H).where(H.c.id == a.hit_id)).one())
    service.deliver()
    return jsonify(AssignmentId=assignment_id, AssignmentStatus="Returned")


def _submit(assignment_id: str | None, fields: list[tuple[str, str]]) -> Response:
    if not assignment_id:
        raise WorkerError(400, "MissingAssignmentId", "assignmentId is required")
    service = current_service()
    with service.transaction(request.host_url) as ctx:
        a = _accepted(ctx, assignment_id)
        hit = ctx.conn.execute(select(H).where(H.c.id == a.hit_id)).one()
        ht = ctx.conn.execute(select(HT).where(HT.c.id == hit.hit_type_id)).one()
        answers = answers_for(parse_question(hit.question), fields)
        ctx.conn.execute(
            update(A)
            .where(A.c.id == a.id)
            .values(
                status="Submitted",
                submit_time=ctx.now,
                auto_approval_time=ctx.now + ht.auto_approval_delay,
                answer=answer_xml(answers),
            )
        )
        queue_event(ctx, a.hit_id, "AssignmentSubmitted", a.id)
        lifecycle.check_reviewable(ctx, hit)
    service.deliver()
    return jsonify(AssignmentId=assignment_id, AssignmentStatus="Submitted")


@bp.post("/worker/assignments/<assignment_id>/submit")
def submit(assignment_id: str) -> Response:
    return _submit(assignment_id, list(request.form.items(multi=True)))


@bp.post("/mturk/externalSubmit")
def external_submit() -> Response:
    return _submit(request.form.get("assignmentId"), list(request.form.items(multi=True)))


@bp.get("/worker/messages")
def messages() -> Response:
    values = _args()
    M = models.worker_messages
    with current_service().transaction(request.host_url) as ctx:
        worker_id = _worker(ctx, values)
        rows = ctx.conn.execute(select(M).where(M.c.worker_id == worker_id).order_by(M.c.seq))
        out = [{"Subject": m.subject, "MessageText": m.text, "SentTime": m.created} for m in rows]
    return jsonify(Messages=out)
