"""Requester operations on HIT types and HITs."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select, update

from harness.providers.mturk import pricing
from harness.providers.mturk.local_service import lifecycle, models
from harness.providers.mturk.local_service.api_errors import (
    RequestError,
    amount,
    check_length,
    check_range,
    invalid_value,
)
from harness.providers.mturk.local_service.lookups import (
    get_hit,
    get_hit_type,
    remember_token,
    seen_token,
)
from harness.providers.mturk.local_service.qualifications import check_requirements
from harness.providers.mturk.local_service.questions import parse_question
from harness.providers.mturk.local_service.serialize import (
    hit_json,
    hit_query,
    keyed_page,
    list_page,
)
from harness.providers.mturk.local_service.state import Ctx, charge, new_id, refund

H = models.hits
HT = models.hit_types
DEFAULT_AUTO_APPROVAL = 30 * 24 * 3600  # MTurk's default: 30 days
MAX_SECONDS = 365 * 24 * 3600


def hit_type_id(ctx: Ctx, p: dict[str, Any]) -> str:
    """Register (or find) the HIT type these properties describe.

    Equal properties give the same id, as MTurk does: the id is a digest of the properties.
    """
    check_range(p, "AssignmentDurationInSeconds", 30, MAX_SECONDS)
    check_range(p, "AutoApprovalDelayInSeconds", 0, DEFAULT_AUTO_APPROVAL)
    check_length(p, "Title", 128)
    check_length(p, "Description", 2000)
    check_length(p, "Keywords", 1000)
    reward = amount(p, "Reward")
    requirements = p.get("QualificationRequirements") or []
    check_requirements(ctx.conn, requirements)
    props = {
        "title": p["Title"],
        "description": p["Description"],
        "keywords": p.get("Keywords"),
        "reward": pricing.format_amount(reward),
        "assignment_duration": p["AssignmentDurationInSeconds"],
        "auto_approval_delay": p.get("AutoApprovalDelayInSeconds", DEFAULT_AUTO_APPROVAL),
        "qualification_requirements": json.dumps(requirements, sort_keys=True),
    }
    digest = hashlib.sha256(json.dumps(props, sort_keys=True).encode()).digest()
    type_id = base64.b32encode(digest).decode()[:30]
    exists = ctx.conn.execute(select(HT.c.id).where(HT.c.id == type_id)).first()
    if exists is None:
        ctx.conn.execute(insert(HT).values(id=type_id, created=ctx.now, **props))
    return type_id


def create_hit_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return {"HITTypeId": hit_type_id(ctx, p)}


def _create(ctx: Ctx, type_id: str, p: dict[str, Any]) -> dict[str, Any]:
    token = p.get("UniqueRequestToken")
    existing = seen_token(ctx, "hit", token)
    if existing is not None:
        raise RequestError(
            f"There is already a HIT which exists with the same UniqueRequestToken. ({existing})",
            "AWS.MechanicalTurk.HitAlreadyExists",
        )
    check_range(p, "LifetimeInSeconds", 30, MAX_SECONDS)
    check_range(p, "MaxAssignments", 1, 1_000_000)
    check_length(p, "RequesterAnnotation", 255)
    if "HITLayoutId" in p:
        raise RequestError("HIT layouts are not supported by the local MTurk service.")
    if "Question" not in p:
        raise RequestError("Either a Question parameter or a HITLayoutId parameter must be given.")
    question = parse_question(p["Question"])
    ht = get_hit_type(ctx, type_id)
    max_assignments = p.get("MaxAssignments", 1)
    cost = pricing.hit_cost(Decimal(ht.reward), max_assignments)
    charge(ctx.conn, cost.total)
    hit_id = new_id()
    ctx.conn.execute(
        insert(H).values(
            id=hit_id,
            hit_type_id=type_id,
            question=p["Question"],
            question_kind=question.kind,
            created=ctx.now,
            expiration=ctx.now + p["LifetimeInSeconds"],
            max_assignments=max_assignments,
            annotation=p.get("RequesterAnnotation"),
            reward=ht.reward,
            fee=pricing.format_amount(cost.fee),
        )
    )
    remember_token(ctx, "hit", token, hit_id)
    return {"HIT": hit_json(get_hit(ctx, hit_id), ctx.now)}


def create_hit(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return _create(ctx, hit_type_id(ctx, p), p)


def create_hit_with_hit_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return _create(ctx, p["HITTypeId"], p)


def get_hit_op(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return {"HIT": hit_json(get_hit(ctx, p["HITId"]), ctx.now)}


def _hits(ctx: Ctx, rows: Sequence[Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {"HITs": [hit_json(h, ctx.now) for h in rows], **extra}


def list_hits(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    query = hit_query().where(H.c.disposed.is_(False))
    return _hits(ctx, *keyed_page(ctx.conn, query, H.c.seq, p))


def list_hits_for_qualification_type(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """HITs whose requirements name the type (the text search only narrows the candidates)."""
    type_id = p["QualificationTypeId"]
    rows = ctx.conn.execute(
        hit_query()
        .where(H.c.disposed.is_(False), HT.c.qualification_requirements.contains(type_id))
        .order_by(H.c.seq)
    ).all()
    chosen = [
        r
        for r in rows
        if any(q["QualificationTypeId"] == type_id for q in json.loads(r.ht_requirements))
    ]
    return _hits(ctx, *list_page(chosen, lambda r: r.seq, p))


def list_reviewable_hits(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    wanted = p.get("Status", "Reviewable")
    query = hit_query().where(H.c.disposed.is_(False)).order_by(H.c.seq)
    if "HITTypeId" in p:
        query = query.where(H.c.hit_type_id == p["HITTypeId"])
    chosen = [h for h in ctx.conn.execute(query) if lifecycle.status(h, ctx.now) == wanted]
    return _hits(ctx, *list_page(chosen, lambda r: r.seq, p))


def _wrong_state(current: str, allowed: str) -> RequestError:
    return RequestError(
        f"This HIT is currently in the state '{current}'.  This operation can be called with a "
        f"status of: {allowed}",
        "AWS.MechanicalTurk.InvalidHITState",
    )


def _not_disposed(hit: Any) -> None:
    """Refuse a change to a HIT that is Disposed (DeleteHIT)."""
    if hit.disposed:
        raise _wrong_state("Disposed", "Assignable, Unassignable, Reviewable, Reviewing")


def update_expiration(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Set a HIT's expiry; a time in the past expires it now (how requesters end a HIT early)."""
    hit = get_hit(ctx, p["HITId"])
    _not_disposed(hit)
    expire_at = float(p["ExpireAt"])
    values: dict[str, Any] = {"expiration": max(expire_at, ctx.now) if expire_at > 0 else ctx.now}
    if expire_at > ctx.now:
        values.update(expired_notified=False, reviewable_notified=False, reviewing=False)
    ctx.conn.execute(update(H).where(H.c.id == hit.id).values(**values))
    return {}


def update_review_status(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    hit = get_hit(ctx, p["HITId"])
    current = lifecycle.status(hit, ctx.now)
    revert = p.get("Revert", False)
    needed = "Reviewing" if revert else "Reviewable"
    if current != needed:
        raise _wrong_state(current, needed)
    ctx.conn.execute(update(H).where(H.c.id == hit.id).values(reviewing=not revert))
    return {}


def delete_hit(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Dispose of a Reviewable/Reviewing HIT whose assignments are all decided.

    Money held for slots never filled is returned now (chosen: MTurk does not say when).
    Deleting a HIT that is already Disposed succeeds again (chosen).
    """
    hit = get_hit(ctx, p["HITId"])
    if hit.disposed:
        return {}
    current = lifecycle.status(hit, ctx.now)
    if current not in ("Reviewable", "Reviewing"):
        raise _wrong_state(current, "Reviewing, Reviewable")
    if hit.n_submitted:
        raise RequestError(
            f"This HIT has {hit.n_submitted} submitted assignment(s) that are neither approved nor "
            "rejected; approve or reject every assignment before deleting the HIT.",
            "AWS.MechanicalTurk.InvalidHITState",
        )
    unused = hit.max_assignments - hit.n_completed
    refund(ctx.conn, (Decimal(hit.reward) + Decimal(hit.fee)) * unused)
    ctx.conn.execute(update(H).where(H.c.id == hit.id).values(disposed=True))
    return {}


def create_additional_assignments(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    hit = get_hit(ctx, p["HITId"])
    token = p.get("UniqueRequestToken")
    if seen_token(ctx, "extend", token) is not None:
        raise RequestError(
            f"The request with UniqueRequestToken {token} was already processed for HIT {hit.id}.",
            "AWS.MechanicalTurk.DuplicateRequest",
        )
    extra = p["NumberOfAdditionalAssignments"]
    if extra < 1:
        raise invalid_value(extra, "NumberOfAdditionalAssignments", "It must be at least 1.")
    _not_disposed(hit)
    new_max = hit.max_assignments + extra
    limit = pricing.LARGE_HIT_ASSIGNMENTS
    if hit.max_assignments < limit <= new_max:
        raise RequestError(
            f"HITs created with fewer than {limit} assignments cannot be extended to have "
            f"{limit} or more assignments (this HIT has {hit.max_assignments}; asked for "
            f"{new_max}).",
            "AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease",
        )
    charge(ctx.conn, (Decimal(hit.reward) + Decimal(hit.fee)) * extra)
    ctx.conn.execute(
        update(H)
        .where(H.c.id == hit.id)
        .values(
            max_assignments=new_max,
            reviewable_notified=False,
            reviewing=False,
        )
    )
    lifecycle.check_reviewable(ctx, hit.id)  # an expired HIT stays Reviewable: say so again
    remember_token(ctx, "extend", token, hit.id)
    return {}


def update_hit_type_of_hit(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    """Move a HIT to another HIT type: it takes that type's title, reward, requirements...

    Chosen (MTurk does not say how money follows): every slot not yet approved or rejected is
    repriced at the new reward and fee, and the difference is charged (or returned) now; work
    already decided keeps what it was paid.
    """
    hit = get_hit(ctx, p["HITId"])
    _not_disposed(hit)
    ht = get_hit_type(ctx, p["HITTypeId"])
    new = pricing.hit_cost(Decimal(ht.reward), hit.max_assignments)
    slots = hit.max_assignments - hit.n_completed
    difference = (new.per_assignment - Decimal(hit.reward) - Decimal(hit.fee)) * slots
    if difference > 0:
        charge(ctx.conn, difference)
    else:
        refund(ctx.conn, -difference)
    ctx.conn.execute(
        update(H)
        .where(H.c.id == hit.id)
        .values(hit_type_id=ht.id, reward=ht.reward, fee=pricing.format_amount(new.fee))
    )
    return {}


OPERATIONS = {
    "CreateHITType": create_hit_type,
    "CreateHIT": create_hit,
    "CreateHITWithHITType": create_hit_with_hit_type,
    "GetHIT": get_hit_op,
    "ListHITs": list_hits,
    "ListHITsForQualificationType": list_hits_for_qualification_type,
    "ListReviewableHITs": list_reviewable_hits,
    "UpdateExpirationForHIT": update_expiration,
    "UpdateHITReviewStatus": update_review_status,
    "DeleteHIT": delete_hit,
    "CreateAdditionalAssignmentsForHIT": create_additional_assignments,
    "UpdateHITTypeOfHIT": update_hit_type_of_hit,
}
