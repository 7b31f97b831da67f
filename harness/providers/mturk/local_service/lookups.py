"""Finding the records a request names, with MTurk's errors when they do not exist, and
UniqueRequestToken bookkeeping.

UniqueRequestToken (MTurk, "Use request tokens"): a token seen within the last 24 hours makes the
repeated call fail with a message holding the id of what the first call made; after 24 hours the
token may be used again. HIT creation (CreateHIT, CreateHITWithHITType), SendBonus and
CreateAdditionalAssignmentsForHIT each keep their own token space (chosen).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import (
    RequestError,
    assignment_not_found,
    hit_not_found,
    qualification_type_not_found,
)
from harness.providers.mturk.local_service.serialize import hit_query
from harness.providers.mturk.local_service.state import Ctx

TOKEN_LIFETIME = 24 * 3600
VISIBLE = ("Submitted", "Approved", "Rejected")


def get_hit(ctx: Ctx, hit_id: str) -> Any:
    """The HIT with the HIT type columns `serialize.hit_json` needs."""
    row = ctx.conn.execute(hit_query().where(models.hits.c.id == hit_id)).first()
    if row is None:
        raise hit_not_found(hit_id)
    return row


def get_assignment(ctx: Ctx, assignment_id: str) -> Any:
    """A submitted, approved or rejected assignment (the only kinds a requester can see)."""
    a = models.assignments
    row = ctx.conn.execute(
        select(a).where(a.c.id == assignment_id, a.c.status.in_(VISIBLE))
    ).first()
    if row is None:
        raise assignment_not_found(assignment_id)
    return row


def get_hit_type(ctx: Ctx, type_id: str) -> Any:
    """A HIT type that can still be used (not disposed with a deleted qualification type)."""
    ht = models.hit_types
    row = ctx.conn.execute(select(ht).where(ht.c.id == type_id, ht.c.disposed.is_(False))).first()
    if row is None:
        raise RequestError(
            f"HITType {type_id} does not exist.", "AWS.MechanicalTurk.HITTypeDoesNotExist"
        )
    return row


def get_qualification_type(ctx: Ctx, type_id: str) -> Any:
    """A qualification type created on this service (system types are not rows)."""
    t = models.qualification_types
    row = ctx.conn.execute(select(t).where(t.c.id == type_id)).first()
    if row is None:
        raise qualification_type_not_found(type_id)
    return row


def seen_token(ctx: Ctx, kind: str, token: str | None) -> str | None:
    """The result recorded for `token` in the last 24 hours, if any."""
    if token is None:
        return None
    t = models.request_tokens
    ctx.conn.execute(delete(t).where(t.c.created <= ctx.now - TOKEN_LIFETIME))
    row = ctx.conn.execute(select(t.c.result).where(t.c.kind == kind, t.c.token == token)).first()
    return None if row is None else row[0]


def remember_token(ctx: Ctx, kind: str, token: str | None, result: str) -> None:
    if token is not None:
        ctx.conn.execute(
            insert(models.request_tokens).values(
                kind=kind, token=token, created=ctx.now, result=result
            )
        )
