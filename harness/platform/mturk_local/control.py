"""Control endpoints for tests and demos (not part of MTurk): clock, balance, faults, delivery.

GET  /_control/clock                  {"now": epoch seconds}
POST /_control/clock                  {"advance": seconds} or {"set": epoch, "frozen": bool}
POST /_control/balance                {"balance": "5.00"}
GET  /_control/faults, POST ...       the fault switches (see faults.py)
POST /_control/deliver                send pending notifications now
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.platform.mturk_local.service import current_service
from harness.platform.mturk_local.state import balance, set_balance
from harness.platform.pricing import format_amount, parse_amount

bp = Blueprint("control", __name__, url_prefix="/_control")


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    return body if isinstance(body, dict) else {}


def _bad(message: str) -> tuple[Response, int]:
    return jsonify(error=message), 400


@bp.route("/clock", methods=["GET", "POST"])
def clock() -> Any:
    service = current_service()
    if request.method == "POST":
        body = _body()
        if "advance" in body:
            service.clock.advance(float(body["advance"]))
        elif "set" in body:
            service.clock.set(float(body["set"]), frozen=bool(body.get("frozen", False)))
        else:
            return _bad("give 'advance' (seconds) or 'set' (epoch seconds)")
        service.save_clock()
    return jsonify(now=service.clock.now(), frozen=service.clock.frozen_at is not None)


@bp.post("/balance")
def set_account_balance() -> Any:
    service = current_service()
    try:
        amount = parse_amount(str(_body().get("balance")))
    except ValueError as exc:
        return _bad(str(exc))
    with service.transaction() as ctx:
        set_balance(ctx.conn, amount)
        now: Decimal = balance(ctx.conn)
    return jsonify(AvailableBalance=format_amount(now))


@bp.route("/faults", methods=["GET", "POST"])
def faults() -> Any:
    service = current_service()
    if request.method == "POST":
        try:
            service.faults.update(_body())
        except ValueError as exc:
            return _bad(str(exc))
    return jsonify(service.faults.settings())


@bp.post("/deliver")
def deliver() -> Any:
    return jsonify(sent=current_service().deliver())
