"""Requester operations on qualification types: create, get, list, update, delete.

From MTurk's API reference: a type without a Test "may be requested without answering any
questions" (CreateQualificationType, Test), so every type a requester creates is requestable
(`IsRequestable` true) and system types are not. ListQualificationTypes with
MustBeRequestable=true therefore lists every type the requester made, which is what Mephisto's
find-or-create and amti's associate-by-name rely on; MustBeRequestable=false also considers the
system types, unless MustBeOwnedByCaller (default false) restricts the list to the caller's.
`Query` matches the name, description or keywords, ignoring case.

DeleteQualificationType: the type is gone at once and its name can be used again (MTurk takes up
to 48 hours; chosen), pending requests for it are rejected, HIT types requiring it can make no
new HITs, and granted qualifications stay, as the reference says, for HITs still running.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select, update

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.answer_key import parse_answer_key, parse_test
from harness.providers.mturk.local_service.api_errors import (
    RequestError,
)
from harness.providers.mturk.local_service.lookups import get_qualification_type
from harness.providers.mturk.local_service.qualifications import (
    ADULT,
    LOCALE,
    MASTERS_PRODUCTION,
    MASTERS_SANDBOX,
    NUMBER_APPROVED,
    PERCENT_APPROVED,
)
from harness.providers.mturk.local_service.serialize import list_page
from harness.providers.mturk.local_service.state import Ctx, new_id

QT = models.qualification_types
QR = models.qualification_requests
MTURK_LAUNCH = 1130889600.0  # 2005-11-02: the CreationTime shown for system types (chosen)
SYSTEM_TYPE_INFO = {
    MASTERS_SANDBOX: ("Masters", "Workers who have been awarded Masters (sandbox)."),
    MASTERS_PRODUCTION: ("Masters", "Workers who have been awarded Masters."),
    NUMBER_APPROVED: ("Worker_NumberHITsApproved", "The number of HITs a worker had approved."),
    LOCALE: ("Worker_Locale", "The location of the worker, as given in their account."),
    ADULT: ("Worker_Adult", "The worker agreed to work on adult content."),
    PERCENT_APPROVED: (
        "Worker_PercentAssignmentsApproved",
        "The percentage of a worker's submitted assignments that were approved.",
    ),
}


def system_type_json(type_id: str) -> dict[str, Any]:
    name, description = SYSTEM_TYPE_INFO[type_id]
    return {
        "QualificationTypeId": type_id,
        "CreationTime": MTURK_LAUNCH,
        "Name": name,
        "Description": description,
        "QualificationTypeStatus": "Active",
        "IsRequestable": False,
        "AutoGranted": False,
    }


def type_json(t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "QualificationTypeId": t.id,
        "CreationTime": t.created,
        "Name": t.name,
        "Description": t.description,
        "QualificationTypeStatus": t.status,
        "IsRequestable": True,
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


def _check_test(test: str | None, answer_key: str | None, duration: int | None) -> None:
    """A Test is a QuestionForm with a duration; an AnswerKey scores that Test."""
    if test is None:
        if answer_key is not None:
            raise RequestError("An AnswerKey can only be given together with a Test.")
        return
    if duration is None:
        raise RequestError("TestDurationInSeconds must be given with a Test.")
    questions = parse_test(test)
    if answer_key is not None:
        parse_answer_key(answer_key, questions)


def _no_test_with_auto_grant() -> RequestError:
    return RequestError(
        "A QualificationType cannot have both a Test and AutoGranted set to true.",
        "AWS.MechanicalTurk.InvalidParameterValue",
    )


def create_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    if ctx.conn.execute(select(QT.c.id).where(QT.c.name == p["Name"])).first() is not None:
        raise RequestError(
            "You have already created a QualificationType with this name. A QualificationType's "
            "name must be unique among all of the QualificationTypes created by the same user.",
            "AWS.MechanicalTurk.QualificationTypeAlreadyExists",
        )
    if p.get("Test") is not None and p.get("AutoGranted"):
        raise _no_test_with_auto_grant()
    _check_test(p.get("Test"), p.get("AnswerKey"), p.get("TestDurationInSeconds"))
    type_id = new_id()
    auto = bool(p.get("AutoGranted", False))
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
            auto_granted=auto,
            auto_granted_value=p.get("AutoGrantedValue", 1) if auto else p.get("AutoGrantedValue"),
            created=ctx.now,
        )
    )
    return {"QualificationType": type_json(get_qualification_type(ctx, type_id))}


def get_qualification_type_op(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    type_id = p["QualificationTypeId"]
    if type_id in SYSTEM_TYPE_INFO:
        return {"QualificationType": system_type_json(type_id)}
    return {"QualificationType": type_json(get_qualification_type(ctx, type_id))}


def list_qualification_types(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    found: list[tuple[int, dict[str, Any]]] = []
    if not p.get("MustBeRequestable") and not p.get("MustBeOwnedByCaller"):
        system = sorted(SYSTEM_TYPE_INFO)
        found += [(i - len(system), system_type_json(t)) for i, t in enumerate(system)]
    rows = ctx.conn.execute(select(QT).order_by(QT.c.seq)).all()
    found += [(r.seq, type_json(r)) for r in rows]
    query = str(p.get("Query") or "").lower()
    if query:
        found = [
            (key, t)
            for key, t in found
            if query in f"{t['Name']}\n{t['Description']}\n{t.get('Keywords', '')}".lower()
        ]
    page, extra = list_page(found, lambda item: item[0], p)
    return {**extra, "QualificationTypes": [t for _, t in page]}


def update_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Change what the reference lets change: status, description, test, retry delay, grant.

    A test cannot be removed, nor a type with a test be made AutoGranted; AnswerKey and
    TestDurationInSeconds come with a Test (the reference's rules). Name and Keywords stay.
    """
    t = get_qualification_type(ctx, p["QualificationTypeId"])
    test = p.get("Test")
    auto = p.get("AutoGranted")
    if test is None and ("AnswerKey" in p or "TestDurationInSeconds" in p):
        raise RequestError(
            "To change the AnswerKey or TestDurationInSeconds, give the Test again with them."
        )
    if auto and (test is not None or t.test is not None):
        raise _no_test_with_auto_grant()
    values: dict[str, Any] = {}
    if test is not None:
        _check_test(test, p.get("AnswerKey"), p.get("TestDurationInSeconds"))
        values.update(
            test=test,
            answer_key=p.get("AnswerKey"),
            test_duration=p["TestDurationInSeconds"],
            auto_granted=False,
        )
    for key, column in (
        ("Description", "description"),
        ("QualificationTypeStatus", "status"),
        ("RetryDelayInSeconds", "retry_delay"),
        ("AutoGrantedValue", "auto_granted_value"),
    ):
        if key in p:
            values[column] = p[key]
    if auto is not None and test is None:
        values["auto_granted"] = auto
        if auto and "AutoGrantedValue" not in p and t.auto_granted_value is None:
            values["auto_granted_value"] = 1
    if values:
        ctx.conn.execute(update(QT).where(QT.c.id == t.id).values(**values))
    return {"QualificationType": type_json(get_qualification_type(ctx, t.id))}


def delete_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    type_id = p["QualificationTypeId"]
    if type_id in SYSTEM_TYPE_INFO:
        raise RequestError(f"QualificationType {type_id} is a system type and cannot be deleted.")
    t = get_qualification_type(ctx, type_id)
    ctx.conn.execute(
        update(QR)
        .where(QR.c.type_id == t.id, QR.c.status.in_(("Started", "Submitted")))
        .values(status="Rejected", reason="The Qualification type was deleted.")
    )
    ht = models.hit_types
    requiring = ctx.conn.execute(
        select(ht.c.id).where(ht.c.qualification_requirements.contains(f'"{t.id}"'))
    ).all()
    if requiring:
        ctx.conn.execute(
            update(ht).where(ht.c.id.in_([r.id for r in requiring])).values(disposed=True)
        )
    ctx.conn.execute(delete(QT).where(QT.c.id == t.id))
    return {}


def owned_type(ctx: Ctx, type_id: str) -> Any:
    """A type the requester created; a clear error for system types and unknown ids."""
    if type_id in SYSTEM_TYPE_INFO:
        raise RequestError(
            f"QualificationType {type_id} ({SYSTEM_TYPE_INFO[type_id][0]}) is a system type: "
            "only QualificationTypes you created can be used in this operation.",
            "AWS.MechanicalTurk.QualificationTypeDoesNotExist",
        )
    return get_qualification_type(ctx, type_id)


OPERATIONS = {
    "CreateQualificationType": create_qualification_type,
    "GetQualificationType": get_qualification_type_op,
    "ListQualificationTypes": list_qualification_types,
    "UpdateQualificationType": update_qualification_type,
    "DeleteQualificationType": delete_qualification_type,
}
