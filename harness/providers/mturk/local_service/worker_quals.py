"""The worker side of qualifications: asking for one, taking its test.

GET  /worker/qualifications/<TypeId>                   the type, and where the worker stands
POST /worker/qualifications/<TypeId>/request           ask for it: granted at once (AutoGranted),
                                                       a test to take (Test), or a request for
                                                       the requester to decide (neither)
POST /worker/qualification-requests/<id>/answers       the test's answers: one form field per
                                                       QuestionIdentifier, repeated for several
                                                       selections; scored at once with an
                                                       AnswerKey, else left for the requester

Rules from MTurk's API reference (CreateQualificationType): without RetryDelayInSeconds a worker
may request a type only once; with it, again that long after the last request. A test must be
answered within TestDurationInSeconds of asking. Chosen where the reference is silent: a worker
whose qualification was revoked cannot ask again, an Inactive type cannot be asked for, and
answers that come too late close the request (status Rejected, reason given).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import insert, select, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.answer_key import (
    answers_xml,
    parse_answer_key,
    parse_test,
    score,
)
from harness.providers.mturk.local_service.api_errors import ApiError
from harness.providers.mturk.local_service.ops_qual_types import SYSTEM_TYPE_INFO
from harness.providers.mturk.local_service.ops_quals import grant, message
from harness.providers.mturk.local_service.service import current_service
from harness.providers.mturk.local_service.state import Ctx, new_id
from harness.providers.mturk.local_service.worker_api import NOT_XML
from harness.providers.mturk.local_service.worker_params import (
    WorkerError,
    params,
    record_worker,
    stated_profile,
    worker_error_response,
    worker_id,
)

bp = Blueprint("worker_quals", __name__)
bp.register_error_handler(WorkerError, worker_error_response)
QT = models.qualification_types
Q = models.qualifications
QR = models.qualification_requests


def _type(ctx: Ctx, type_id: str) -> Any:
    if type_id in SYSTEM_TYPE_INFO:
        raise WorkerError(
            409, "NotRequestable", f"{SYSTEM_TYPE_INFO[type_id][0]} is a system qualification"
        )
    row = ctx.conn.execute(select(QT).where(QT.c.id == type_id)).first()
    if row is None:
        raise WorkerError(404, "QualificationTypeNotFound", f"{type_id} does not exist")
    return row


def _standing(ctx: Ctx, qt: Any, worker_id: str) -> dict[str, Any]:
    held = ctx.conn.execute(
        select(Q).where(Q.c.type_id == qt.id, Q.c.worker_id == worker_id)
    ).first()
    last = ctx.conn.execute(
        select(QR)
        .where(QR.c.type_id == qt.id, QR.c.worker_id == worker_id)
        .order_by(QR.c.seq.desc())
    ).first()
    out: dict[str, Any] = {}
    if held is not None:
        out["QualificationStatus"] = held.status
        out["IntegerValue"] = held.integer_value
    if last is not None:
        out["QualificationRequestId"] = last.id
        out["RequestStatus"] = last.status
    return out


def _refusal(ctx: Ctx, qt: Any, worker_id: str) -> WorkerError | None:
    """Why the worker may not ask for `qt` now, if they may not."""
    if qt.status != "Active":
        return WorkerError(409, "QualificationTypeInactive", f"{qt.name} is not active")
    standing = _standing(ctx, qt, worker_id)
    if standing.get("QualificationStatus") == "Granted":
        return WorkerError(409, "AlreadyGranted", f"worker {worker_id} already holds {qt.name}")
    if standing.get("QualificationStatus") == "Revoked":
        return WorkerError(409, "Revoked", f"{qt.name} was revoked from worker {worker_id}")
    if standing.get("RequestStatus") in ("Started", "Submitted"):
        return WorkerError(409, "RequestPending", f"a request for {qt.name} is already open")
    if "RequestStatus" in standing:
        last = ctx.conn.execute(select(QR).where(QR.c.id == standing["QualificationRequestId"]))
        asked = last.one().created
        if qt.retry_delay is None:
            return WorkerError(409, "NoRetries", f"{qt.name} can be requested only once")
        if ctx.now < asked + qt.retry_delay:
            wait = asked + qt.retry_delay - ctx.now
            return WorkerError(
                409, "RetryLater", f"{qt.name} can be requested again {wait:.0f} s from now"
            )
    return None


@bp.get("/worker/qualifications/<type_id>")
def show(type_id: str) -> Response:
    stated = stated_profile(params())
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        qt = _type(ctx, type_id)
        refusal = _refusal(ctx, qt, worker_id)
        view = {
            "QualificationTypeId": qt.id,
            "Name": qt.name,
            "Description": qt.description,
            "HasTest": qt.test is not None,
            "AutoGranted": bool(qt.auto_granted),
            "canRequest": refusal is None,
            **_standing(ctx, qt, worker_id),
        }
    return jsonify(view)


@bp.post("/worker/qualifications/<type_id>/request")
def ask(type_id: str) -> Response:
    stated = stated_profile(params())
    with current_service().transaction() as ctx:
        worker_id = record_worker(ctx, stated)
        qt = _type(ctx, type_id)
        refusal = _refusal(ctx, qt, worker_id)
        if refusal is not None:
            raise refusal
        request_id = new_id()
        row: dict[str, Any] = {"id": request_id, "type_id": qt.id, "worker_id": worker_id}
        view: dict[str, Any] = {"QualificationRequestId": request_id}
        if qt.auto_granted:
            value = qt.auto_granted_value if qt.auto_granted_value is not None else 1
            grant(ctx, qt.id, worker_id, value)
            row.update(status="Approved", submit_time=ctx.now)
            view.update(RequestStatus="Approved", QualificationStatus="Granted", IntegerValue=value)
        elif qt.test is not None:
            deadline = ctx.now + qt.test_duration
            row.update(status="Started", test=qt.test, deadline=deadline)
            view.update(RequestStatus="Started", Test=qt.test, Deadline=deadline)
        else:
            row.update(status="Submitted", submit_time=ctx.now)
            view.update(RequestStatus="Submitted")
        ctx.conn.execute(insert(QR).values(created=ctx.now, **row))
    return jsonify(view)


def _given_answers() -> dict[str, frozenset[str]]:
    answers: dict[str, set[str]] = {}
    for name, value in request.form.items(multi=True):
        if NOT_XML.search(name) or NOT_XML.search(value):
            raise WorkerError(
                400, "BadAnswer", f"the answer {name[:40]!r} holds a control character"
            )
        if name != "workerId":
            answers.setdefault(name, set()).add(value.strip())
    return {k: frozenset(v) for k, v in answers.items()}


@bp.post("/worker/qualification-requests/<request_id>/answers")
def answer(request_id: str) -> Response:
    answers = _given_answers()
    wid = worker_id(params())
    with current_service().transaction() as ctx:
        r = ctx.conn.execute(select(QR).where(QR.c.id == request_id)).first()
        if r is None:
            raise WorkerError(404, "RequestNotFound", f"request {request_id} does not exist")
        if r.worker_id != wid:
            raise WorkerError(403, "NotYourRequest", f"request {request_id} is not {wid}'s")
        if r.status != "Started":
            raise WorkerError(409, "NotTakingTest", f"request {request_id} is {r.status}")
        if ctx.now > r.deadline:
            late = "The test was not finished within its time limit."
            closed = {"status": "Rejected", "reason": late}
            ctx.conn.execute(update(QR).where(QR.c.id == r.id).values(**closed))
            view: dict[str, Any] = {"RequestStatus": "Rejected", "Reason": late}
        else:
            view = _take(ctx, r, answers)
    return jsonify({"QualificationRequestId": request_id, **view})


def _take(ctx: Ctx, r: Any, answers: dict[str, frozenset[str]]) -> dict[str, Any]:
    """Record a test's answers; score them now when the type has an AnswerKey."""
    qt = ctx.conn.execute(select(QT).where(QT.c.id == r.type_id)).one()
    try:
        test = parse_test(r.test)
        key = parse_answer_key(qt.answer_key, test) if qt.answer_key is not None else None
    except ApiError as exc:  # checked when the type was made; kept safe all the same
        raise WorkerError(409, "BadTest", exc.message) from exc
    values = {"answer": answers_xml(test, answers), "submit_time": ctx.now}
    if key is None:
        ctx.conn.execute(update(QR).where(QR.c.id == r.id).values(status="Submitted", **values))
        return {"RequestStatus": "Submitted"}
    value = score(key, answers)
    grant(ctx, qt.id, r.worker_id, value)
    ctx.conn.execute(update(QR).where(QR.c.id == r.id).values(status="Approved", **values))
    message(
        ctx,
        r.worker_id,
        f"You have been granted the qualification {qt.name}",
        f"Your test was scored: you now hold {qt.name} with the value {value}.",
    )
    return {"RequestStatus": "Approved", "QualificationStatus": "Granted", "IntegerValue": value}
