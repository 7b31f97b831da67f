"""Parameters of the worker side, parsed strictly: every bad value is a JSON 400 naming it.

A call's parameters come from the query string, a form, or a JSON object (bounded in depth);
each is checked for its type and range before anything is stored: a list where a string belongs,
an integer too large for the database, a NaN, a worker id MTurk would not issue.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Response, jsonify, request
from sqlalchemy import select
from sqlalchemy.dialects.sqlite import insert

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import ParameterValidationError
from harness.providers.mturk.local_service.jsonbody import BodyError, parse_object
from harness.providers.mturk.local_service.serialize import decode_token
from harness.providers.mturk.local_service.state import Ctx

WORKER_ID = re.compile(r"A[A-Z0-9]{1,63}")  # MTurk's model: ^A[A-Z0-9]+$, 1 to 64 characters
COUNTRY = re.compile(r"[A-Z]{2}")  # ISO 3166-1 alpha-2
SUBDIVISION = re.compile(r"[A-Z0-9]{1,3}")  # ISO 3166-2, the part after the country
DIGITS = re.compile(r"[0-9]{1,10}")
MOST_APPROVED = 2**31 - 1
TRUE, FALSE = ("1", "true", "yes"), ("0", "false", "no", "")


class WorkerError(Exception):
    """A refused worker-side call: HTTP status, short code, message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def worker_error_response(exc: WorkerError) -> tuple[Response, int]:
    return jsonify(error=exc.message, code=exc.code), exc.status


def bad(name: str, expected: str, value: Any) -> WorkerError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return WorkerError(400, "BadParameter", f"{name} must be {expected}; got {shown}")


def params() -> dict[str, Any]:
    """The call's parameters: query string, then form fields or a JSON object on top."""
    values: dict[str, Any] = dict(request.args)
    if request.is_json:
        try:
            values.update(parse_object(request.get_data()))
        except BodyError as exc:
            raise WorkerError(400, "BadBody", str(exc)) from exc
    else:
        values.update(request.form)
    return values


def text(values: dict[str, Any], name: str, pattern: re.Pattern[str], expected: str) -> str | None:
    value = values.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise bad(name, expected, value)
    return value


def integer(values: dict[str, Any], name: str, low: int, high: int) -> int | None:
    """An integer from a JSON number or a string of ASCII digits, within [low, high]."""
    value = values.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, str) and DIGITS.fullmatch(value):
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise bad(name, f"a whole number from {low} to {high}", value)
    if not low <= number <= high:
        raise bad(name, f"a whole number from {low} to {high}", value)
    return number


def flag(values: dict[str, Any], name: str) -> bool | None:
    value = values.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in TRUE + FALSE:
        return value.lower() in TRUE
    raise bad(name, "true or false (1 or 0)", value)


def next_token(values: dict[str, Any]) -> int | None:
    token = values.get("nextToken")
    if token is None or token == "":
        return None
    if not isinstance(token, str):
        raise bad("nextToken", "a token from a previous page", token)
    try:
        return decode_token(token)
    except ParameterValidationError as exc:
        raise bad("nextToken", "a token from a previous page", token) from exc


def worker_id(values: dict[str, Any]) -> str:
    found = text(
        values, "workerId", WORKER_ID, "an MTurk worker id: A followed by capitals and digits"
    )
    if found is None:
        raise WorkerError(400, "MissingWorkerId", "workerId is required")
    return found


Stated = tuple[str, dict[str, Any]]  # a call's worker id and the profile values it states


def stated_profile(values: dict[str, Any]) -> Stated:
    """The worker id of this call and the profile values it states (checked; parsed before
    a request takes the write lock)."""
    wid = worker_id(values)
    profile = {
        "country": text(values, "country", COUNTRY, "a two-letter country code such as US"),
        "subdivision": text(values, "subdivision", SUBDIVISION, "an ISO 3166-2 code such as CA"),
        "percent_approved": integer(values, "percentApproved", 0, 100),
        "number_approved": integer(values, "numberApproved", 0, MOST_APPROVED),
        "master": flag(values, "master"),
        "adult": flag(values, "adult"),
    }
    return wid, {k: v for k, v in profile.items() if v is not None}


def record_worker(ctx: Ctx, stated: Stated) -> str:
    """The worker id of this call; records (and updates) the profile the worker states."""
    wid, given = stated
    upsert = insert(models.workers).values(id=wid, **given)
    ctx.conn.execute(
        upsert.on_conflict_do_update(
            index_elements=["id"], set_={f: upsert.excluded[f] for f in given}
        )
        if given
        else upsert.on_conflict_do_nothing(index_elements=["id"])
    )
    return wid


def blocked(ctx: Ctx, wid: str) -> bool:
    WB = models.worker_blocks
    return ctx.conn.execute(select(WB.c.seq).where(WB.c.worker_id == wid)).first() is not None
