"""Control endpoints for tests and demos (not part of MTurk): clock, balance, faults, delivery.

GET  /_control/clock                  {"now": epoch seconds, "frozen": bool}
POST /_control/clock                  {"advance": seconds} or {"set": epoch, "frozen": bool}
POST /_control/balance                {"balance": "5.00"}
GET  /_control/faults, POST ...       the fault switches (see faults.py)
POST /_control/deliver                try every notification not delivered (nor given up) now
GET  /_control/notifications          the notifications not delivered: retrying or given up
DELETE /_control/notifications[/SEQ]  drop them (or the one numbered SEQ)

Bodies are JSON objects; a bad one (not JSON, a string where a number belongs, NaN, a time
outside 1970-9999, an amount that is not "0.00"-shaped) is a JSON 400 naming the member, and
nothing changes.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.mturk.local_service import money
from harness.providers.mturk.local_service.clock import ClockError
from harness.providers.mturk.local_service.jsonbody import BodyError, parse_object
from harness.providers.mturk.local_service.notifications import drop_undelivered, undelivered
from harness.providers.mturk.local_service.service import current_service
from harness.providers.mturk.local_service.state import balance, set_balance
from harness.providers.mturk.pricing import format_amount

bp = Blueprint("control", __name__, url_prefix="/_control")


class ControlError(Exception):
    """A refused control call; answered 400 with the message."""


@bp.errorhandler(ControlError)
def _refused(exc: ControlError) -> tuple[Response, int]:
    return jsonify(error=str(exc), code="BadRequest"), 400


def _body() -> dict[str, Any]:
    try:
        return parse_object(request.get_data())
    except BodyError as exc:
        raise ControlError(str(exc)) from exc


def _seconds(body: dict[str, Any], name: str) -> float:
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ControlError(f"{name} must be a number of seconds, got {value!r}")
    return float(value)


@bp.route("/clock", methods=["GET", "POST"])
def clock() -> Any:
    service = current_service()
    if request.method == "POST":
        body = _body()
        frozen = body.get("frozen", False)
        if not isinstance(frozen, bool):
            raise ControlError(f"frozen must be true or false, got {frozen!r}")
        try:
            if "advance" in body:
                service.clock.advance(_seconds(body, "advance"))
            elif "set" in body:
                service.clock.set(_seconds(body, "set"), frozen=frozen)
            else:
                raise ControlError("give 'advance' (seconds) or 'set' (epoch seconds)")
        except ClockError as exc:
            raise ControlError(str(exc)) from exc
        service.save_clock()
    return jsonify(now=service.clock.now(), frozen=service.clock.frozen_at is not None)


@bp.post("/balance")
def set_account_balance() -> Any:
    service = current_service()
    body = _body()
    try:
        amount = money.parse(body.get("balance"))
    except ValueError as exc:
        raise ControlError(f"balance: {exc}") from exc
    with service.transaction() as ctx:
        set_balance(ctx.conn, amount)
        now = balance(ctx.conn)
    return jsonify(AvailableBalance=format_amount(now))


@bp.route("/faults", methods=["GET", "POST"])
def faults() -> Any:
    service = current_service()
    if request.method == "POST":
        try:
            service.faults.update(_body())
        except ValueError as exc:
            raise ControlError(str(exc)) from exc
    return jsonify(service.faults.settings())


@bp.post("/deliver")
def deliver() -> Any:
    return jsonify(sent=current_service().deliver_now())


@bp.get("/notifications")
def notifications() -> Any:
    with current_service().transaction() as ctx:
        return jsonify(undelivered=undelivered(ctx.conn))


@bp.delete("/notifications")
@bp.delete("/notifications/<int:seq>")
def drop_notifications(seq: int | None = None) -> Any:
    with current_service().transaction() as ctx:
        dropped = drop_undelivered(ctx.conn, seq)
    if seq is not None and not dropped:
        return jsonify(error=f"no undelivered notification {seq}", code="NotFound"), 404
    return jsonify(dropped=dropped)
