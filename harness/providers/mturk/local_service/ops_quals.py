"""Requester operations on workers' qualifications and on their requests for them.

A worker asks for a qualification on the worker side (`worker_quals.py`); a request waiting for
the requester is listed by ListQualificationRequests (with the Test and the worker's Answer when
the type has a test without an AnswerKey) until AcceptQualificationRequest grants it or
RejectQualificationRequest refuses it; the worker sees the reason among their messages.
GetQualificationScore answers as Dallinger expects MTurk to: "... does not exist" for a worker
without the qualification, "This operation can be called with a status of: Granted" for a
revoked one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import RequestError
from harness.providers.mturk.local_service.ops_qual_types import owned_type
from harness.providers.mturk.local_service.serialize import keyed_page, qualification_json
from harness.providers.mturk.local_service.state import Ctx

Q = models.qualifications
QR = models.qualification_requests


def message(ctx: Ctx, worker_id: str, subject: str, text: str) -> None:
    """Leave a message for a worker (what MTurk would e-mail); read on the worker side."""
    ctx.conn.execute(
        insert(models.worker_messages).values(
            worker_id=worker_id, subject=subject, text=text, created=ctx.now
        )
    )


def grant(ctx: Ctx, type_id: str, worker_id: str, value: int) -> None:
    """Grant (or grant again, with a new value) a qualification."""
    row = ctx.conn.execute(
        select(Q.c.seq).where(Q.c.type_id == type_id, Q.c.worker_id == worker_id)
    ).first()
    values = {"integer_value": value, "status": "Granted", "grant_time": ctx.now}
    if row is None:
        ctx.conn.execute(insert(Q).values(type_id=type_id, worker_id=worker_id, **values))
    else:
        ctx.conn.execute(update(Q).where(Q.c.seq == row.seq).values(**values))


def associate_qualification(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Grant a qualification; tell the worker unless told not to (IntegerValue defaults to 1)."""
    qt = owned_type(ctx, p["QualificationTypeId"])
    worker_id = p["WorkerId"]  # its format is checked against the model
    value = p.get("IntegerValue", 1)
    grant(ctx, qt.id, worker_id, value)
    if p.get("SendNotification", True):
        message(
            ctx,
            worker_id,
            f"You have been granted the qualification {qt.name}",
            f"You now hold the qualification {qt.name} with the value {value}.",
        )
    return {}


def _no_qualification(worker_id: str, type_id: str) -> RequestError:
    return RequestError(
        f"You requested a Qualification that does not exist: worker {worker_id} does not hold "
        f"QualificationType {type_id}.",
        "AWS.MechanicalTurk.QualificationDoesNotExist",
    )


def disassociate_qualification(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    qt = owned_type(ctx, p["QualificationTypeId"])
    row = ctx.conn.execute(
        select(Q.c.seq).where(
            Q.c.type_id == qt.id, Q.c.worker_id == p["WorkerId"], Q.c.status == "Granted"
        )
    ).first()
    if row is None:
        raise _no_qualification(p["WorkerId"], qt.id)
    ctx.conn.execute(update(Q).where(Q.c.seq == row.seq).values(status="Revoked"))
    if "Reason" in p:
        message(ctx, p["WorkerId"], f"Your qualification {qt.name} was revoked", p["Reason"])
    return {}


def list_workers_with_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    qt = owned_type(ctx, p["QualificationTypeId"])
    query = select(Q).where(Q.c.type_id == qt.id, Q.c.status == p.get("Status", "Granted"))
    page, extra = keyed_page(ctx.conn, query, Q.c.seq, p)
    return {"Qualifications": [qualification_json(q) for q in page], **extra}


def get_qualification_score(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    qt = owned_type(ctx, p["QualificationTypeId"])
    row = ctx.conn.execute(
        select(Q).where(Q.c.type_id == qt.id, Q.c.worker_id == p["WorkerId"])
    ).first()
    if row is None:
        raise _no_qualification(p["WorkerId"], qt.id)
    if row.status != "Granted":
        raise RequestError(
            f"This operation can be called with a status of: Granted (the qualification of "
            f"worker {p['WorkerId']} is {row.status}).",
            "AWS.MechanicalTurk.InvalidQualificationState",
        )
    return {"Qualification": qualification_json(row)}


def _request_json(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "QualificationRequestId": r.id,
        "QualificationTypeId": r.type_id,
        "WorkerId": r.worker_id,
        "SubmitTime": r.submit_time,
    }
    if r.test is not None:
        out["Test"] = r.test
    if r.answer is not None:
        out["Answer"] = r.answer
    return out


def list_qualification_requests(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Requests waiting for the requester (status Submitted), of one type or of all."""
    query = select(QR).where(QR.c.status == "Submitted")
    if "QualificationTypeId" in p:
        query = query.where(QR.c.type_id == owned_type(ctx, p["QualificationTypeId"]).id)
    page, extra = keyed_page(ctx.conn, query, QR.c.seq, p)
    return {"QualificationRequests": [_request_json(r) for r in page], **extra}


def _waiting_request(ctx: Ctx, request_id: str) -> Any:
    row = ctx.conn.execute(select(QR).where(QR.c.id == request_id)).first()
    if row is None or row.status == "Started":  # a test still being taken is not submitted
        raise RequestError(
            f"QualificationRequest {request_id} does not exist.",
            "AWS.MechanicalTurk.QualificationRequestDoesNotExist",
        )
    if row.status != "Submitted":
        raise RequestError(
            f"This operation can be called with a status of: Submitted (QualificationRequest "
            f"{request_id} is {row.status}).",
            "AWS.MechanicalTurk.InvalidQualificationRequestState",
        )
    return row


def accept_qualification_request(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    r = _waiting_request(ctx, p["QualificationRequestId"])
    qt = owned_type(ctx, r.type_id)
    value = p.get("IntegerValue", 1)
    grant(ctx, qt.id, r.worker_id, value)
    ctx.conn.execute(update(QR).where(QR.c.id == r.id).values(status="Approved"))
    message(
        ctx,
        r.worker_id,
        f"Your request for the qualification {qt.name} was granted",
        f"You now hold the qualification {qt.name} with the value {value}.",
    )
    return {}


def reject_qualification_request(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    r = _waiting_request(ctx, p["QualificationRequestId"])
    qt = owned_type(ctx, r.type_id)
    reason = p.get("Reason")
    ctx.conn.execute(update(QR).where(QR.c.id == r.id).values(status="Rejected", reason=reason))
    message(
        ctx,
        r.worker_id,
        f"Your request for the qualification {qt.name} was rejected",
        reason or "The requester rejected your request.",
    )
    return {}


OPERATIONS = {
    "AssociateQualificationWithWorker": associate_qualification,
    "DisassociateQualificationFromWorker": disassociate_qualification,
    "ListWorkersWithQualificationType": list_workers_with_qualification_type,
    "GetQualificationScore": get_qualification_score,
    "ListQualificationRequests": list_qualification_requests,
    "AcceptQualificationRequest": accept_qualification_request,
    "RejectQualificationRequest": reject_qualification_request,
}
