"""Requester operations on qualification types, workers' qualifications, blocks and messages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select, update

from harness.platform.mturk_local import models
from harness.platform.mturk_local.api_errors import RequestError, invalid_value
from harness.platform.mturk_local.lookups import get_qualification_type
from harness.platform.mturk_local.serialize import (
    paginate,
    qualification_json,
    qualification_type_json,
)
from harness.platform.mturk_local.state import Ctx, new_id

QT = models.qualification_types
Q = models.qualifications
WB = models.worker_blocks
MAX_NOTIFY = 100


def _message(ctx: Ctx, worker_id: str, subject: str, text: str) -> None:
    ctx.conn.execute(
        insert(models.worker_messages).values(
            worker_id=worker_id, subject=subject, text=text, created=ctx.now
        )
    )


def create_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    if ctx.conn.execute(select(QT.c.id).where(QT.c.name == p["Name"])).first() is not None:
        raise RequestError(
            "You have already created a QualificationType with this name. A QualificationType's "
            "name must be unique among all of the QualificationTypes created by the same user.",
            "AWS.MechanicalTurk.QualificationTypeAlreadyExists",
        )
    if "AnswerKey" in p and "Test" not in p:
        raise RequestError("An AnswerKey can only be given together with a Test.")
    type_id = new_id()
    ctx.conn.execute(
        insert(QT).values(
            id=type_id,
            name=p["Name"],
            description=p["Description"],
            keywords=p.get("Keywords"),
            status=p["QualificationTypeStatus"],
            retry_delay=p.get("RetryDelayInSeconds"),
            test=p.get("Test"),
            answer_key=p.get("AnswerKey"),
            test_duration=p.get("TestDurationInSeconds"),
            auto_granted=p.get("AutoGranted", False),
            auto_granted_value=p.get("AutoGrantedValue"),
            created=ctx.now,
        )
    )
    return {"QualificationType": qualification_type_json(get_qualification_type(ctx, type_id))}


def get_qualification_type_op(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return {
        "QualificationType": qualification_type_json(
            get_qualification_type(ctx, p["QualificationTypeId"])
        )
    }


def list_qualification_types(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """The caller's qualification types, filtered by ``Query`` (in the name or description,
    case-insensitive) and ``MustBeRequestable`` (only types with a test or auto-granting).
    System types are not listed (chosen: MTurk lists them only when not owned by the caller)."""
    rows = ctx.conn.execute(select(QT).order_by(QT.c.created, QT.c.id)).all()
    query = str(p.get("Query") or "").lower()
    if query:
        rows = [r for r in rows if query in f"{r.name} {r.description}".lower()]
    if p.get("MustBeRequestable"):
        rows = [r for r in rows if r.test is not None or r.auto_granted]
    page, extra = paginate(rows, p)
    return {
        "NumResults": len(page),
        "QualificationTypes": [qualification_type_json(t) for t in page],
        **extra,
    }


def associate_qualification(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Grant (or re-grant with a new value) a qualification; tell the worker unless told not to."""
    qt = get_qualification_type(ctx, p["QualificationTypeId"])
    worker_id = p["WorkerId"]  # its format is checked against the model
    value = p.get("IntegerValue", 1)  # MTurk's default IntegerValue is 1
    row = ctx.conn.execute(
        select(Q.c.seq).where(Q.c.type_id == qt.id, Q.c.worker_id == worker_id)
    ).first()
    values = {"integer_value": value, "status": "Granted", "grant_time": ctx.now}
    if row is None:
        ctx.conn.execute(insert(Q).values(type_id=qt.id, worker_id=worker_id, **values))
    else:
        ctx.conn.execute(update(Q).where(Q.c.seq == row.seq).values(**values))
    if p.get("SendNotification", True):
        _message(
            ctx,
            worker_id,
            f"You have been granted the qualification {qt.name}",
            f"You now hold the qualification {qt.name} with the value {value}.",
        )
    return {}


def disassociate_qualification(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    qt = get_qualification_type(ctx, p["QualificationTypeId"])
    row = ctx.conn.execute(
        select(Q.c.seq).where(
            Q.c.type_id == qt.id, Q.c.worker_id == p["WorkerId"], Q.c.status == "Granted"
        )
    ).first()
    if row is None:
        raise RequestError(
            f"You requested a Qualification that does not exist: worker {p['WorkerId']} does "
            f"not hold QualificationType {qt.id}.",
            "AWS.MechanicalTurk.QualificationDoesNotExist",
        )
    ctx.conn.execute(update(Q).where(Q.c.seq == row.seq).values(status="Revoked"))
    if "Reason" in p:
        _message(ctx, p["WorkerId"], f"Your qualification {qt.name} was revoked", p["Reason"])
    return {}


def list_workers_with_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    qt = get_qualification_type(ctx, p["QualificationTypeId"])
    query = select(Q).where(Q.c.type_id == qt.id).order_by(Q.c.seq)
    query = query.where(Q.c.status == p.get("Status", "Granted"))
    page, extra = paginate(ctx.conn.execute(query).all(), p)
    return {"Qualifications": [qualification_json(q) for q in page], **extra}


def create_worker_block(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    worker_id = p["WorkerId"]  # its format is checked against the model
    row = ctx.conn.execute(select(WB.c.seq).where(WB.c.worker_id == worker_id)).first()
    if row is None:
        ctx.conn.execute(insert(WB).values(worker_id=worker_id, reason=p["Reason"]))
    else:
        ctx.conn.execute(update(WB).where(WB.c.seq == row.seq).values(reason=p["Reason"]))
    return {}


def delete_worker_block(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    # Unblocking a worker who is not blocked succeeds (chosen; MTurk does not document it).
    ctx.conn.execute(delete(WB).where(WB.c.worker_id == p["WorkerId"]))
    return {}


def list_worker_blocks(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    page, extra = paginate(ctx.conn.execute(select(WB).order_by(WB.c.seq)).all(), p)
    return {
        "WorkerBlocks": [{"WorkerId": b.worker_id, "Reason": b.reason} for b in page],
        **extra,
    }


def notify_workers(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Message up to 100 workers; a worker this service has never seen is a HardFailure."""
    ids = p["WorkerIds"]
    if len(ids) > MAX_NOTIFY:
        raise invalid_value(
            f"{len(ids)} worker ids", "WorkerIds", f"At most {MAX_NOTIFY} can be given."
        )
    _length = {"Subject": 200, "MessageText": 4096}  # MTurk's documented limits
    for name, most in _length.items():
        if len(p[name]) > most:
            raise invalid_value(
                p[name][:40] + "...", name, f"It must be at most {most} characters."
            )
    known = {
        w
        for (w,) in ctx.conn.execute(
            select(models.workers.c.id).where(models.workers.c.id.in_(ids))
        )
    }
    failures = []
    for worker_id in ids:
        if worker_id in known:
            _message(ctx, worker_id, p["Subject"], p["MessageText"])
        else:
            failures.append(
                {
                    "NotifyWorkersFailureCode": "HardFailure",
                    "NotifyWorkersFailureMessage": f"Cannot send notification to {worker_id}: "
                    "the worker is unknown.",
                    "WorkerId": worker_id,
                }
            )
    return {"NotifyWorkersFailureStatuses": failures}


OPERATIONS = {
    "CreateQualificationType": create_qualification_type,
    "GetQualificationType": get_qualification_type_op,
    "ListQualificationTypes": list_qualification_types,
    "AssociateQualificationWithWorker": associate_qualification,
    "DisassociateQualificationFromWorker": disassociate_qualification,
    "ListWorkersWithQualificationType": list_workers_with_qualification_type,
    "CreateWorkerBlock": create_worker_block,
    "DeleteWorkerBlock": delete_worker_block,
    "ListWorkerBlocks": list_worker_blocks,
    "NotifyWorkers": notify_workers,
}
