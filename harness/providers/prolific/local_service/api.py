"""The requester API of the local Prolific service: ``/api/v1/...`` as Prolific answers it.

Implemented (everything harness's Prolific provider uses): users/me, workspaces and their
balance, filters (the list), studies (create, list, get, update places, transition), submissions
(list by study, get, transition APPROVE/REJECT, bulk approve, request return), bonuses (set up,
pay: not idempotent, as on Prolific), participant groups (create, list, members, add and remove
members). Study transitions follow Prolific's study states: PUBLISH (UNPUBLISHED -> ACTIVE),
PAUSE (ACTIVE -> PAUSED: no new place can be reserved), START (PAUSED -> ACTIVE), STOP (ACTIVE
or PAUSED -> AWAITING REVIEW); any other move is a 400 naming the study's status.
Pagination is Prolific's: ``?page=&page_size=`` with ``_links`` (self, next, previous, last)
and ``meta.count``.
"""

from __future__ import annotations

import json
import math
import sqlite3
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.prolific import pricing
from harness.providers.prolific.local_service import inputs
from harness.providers.prolific.local_service.app import ApiError, service
from harness.providers.prolific.local_service.outbox import notify
from harness.providers.prolific.local_service.state import RESEARCHER, WORKSPACE, Store, new_id

bp = Blueprint("prolific_api", __name__, url_prefix="/api/v1")

COUNTRIES = {
    "0": "United Kingdom",
    "1": "United States",
    "2": "Ireland",
    "3": "Germany",
    "4": "France",
    "5": "Spain",
    "6": "Italy",
    "7": "Netherlands",
    "8": "Canada",
    "9": "Australia",
    "10": "New Zealand",
    "11": "South Africa",
    "12": "Portugal",
    "13": "Poland",
    "14": "Mexico",
    "15": "India",
}
FILTERS: list[dict[str, Any]] = [
    {
        "filter_id": "current-country-of-residence",
        "title": "Current Country of Residence",
        "type": "select",
        "data_type": "ChoiceID",
        "choices": COUNTRIES,
    },
    {
        "filter_id": "approval_rate",
        "title": "Approval Rate",
        "type": "range",
        "data_type": "integer",
        "min": 0,
        "max": 100,
    },
    {
        "filter_id": "approval_numbers",
        "title": "Approval Numbers",
        "type": "range",
        "data_type": "integer",
        "min": 0,
        "max": 100000,
    },
    {
        "filter_id": "participant_group_blocklist",
        "title": "Participant group blocklist",
        "type": "select",
        "data_type": "ParticipantGroupID",
        "choices": {},
    },
]
REJECTION_CATEGORIES = {
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
}
TAKES_PLACE = ("RESERVED", "ACTIVE", "AWAITING REVIEW", "APPROVED")


@bp.before_request
def _guard() -> None:
    auth = request.headers.get("Authorization", "")
    if not auth.startswith("Token ") or not auth.removeprefix("Token ").strip():
        raise ApiError(401, "Authentication credentials were not provided.")
    service().faults.check()
    with service().store.tx() as db:
        sweep(service().store, db)


def sweep(store: Store, db: sqlite3.Connection) -> None:
    """Time out active submissions past their study's maximum allowed time."""
    now = store.now(db)
    for row in db.execute("SELECT id, body FROM study").fetchall():
        limit = json.loads(row["body"]).get("maximum_allowed_time", 0) * 60
        late = db.execute(
            "SELECT id FROM submission WHERE study_id = ? AND status IN ('RESERVED', 'ACTIVE') "
            "AND started + ? < ?",
            (row["id"], limit, now),
        ).fetchall()
        for (sub_id,) in late:
            db.execute("UPDATE submission SET status = 'TIMED-OUT' WHERE id = ?", (sub_id,))
            notify(store, db, sub_id)


def body() -> dict[str, Any]:
    """The request's JSON object (bounded, finite numbers), or 400."""
    return inputs.json_object()


def paginate(rows: list[dict[str, Any]]) -> Response:
    try:
        page = int(request.args.get("page", 1))
        size = min(200, int(request.args.get("page_size", 20)))
    except ValueError as exc:
        raise ApiError(400, "page and page_size must be whole numbers") from exc
    if page < 1 or size < 1:
        raise ApiError(404, "Invalid page.")
    last = max(1, math.ceil(len(rows) / size))
    if page > last:
        raise ApiError(404, "Invalid page.")

    def link(n: int | None, title: str) -> dict[str, Any]:
        if n is None:
            return {"href": None, "title": title}
        args = dict(request.args) | {"page": str(n), "page_size": str(size)}
        query = "&".join(f"{k}={v}" for k, v in args.items())
        return {"href": f"{request.base_url}?{query}", "title": title}

    return jsonify(
        results=rows[(page - 1) * size : page * size],
        _links={
            "self": link(page, "Current page"),
            "next": link(page + 1 if page < last else None, "Next page"),
            "previous": link(page - 1 if page > 1 else None, "Previous page"),
            "last": link(last, "Last page"),
        },
        meta={"count": len(rows)},
    )


# -- account ----------------------------------------------------------------------------------
@bp.get("/users/me/")
def me() -> Response:
    return jsonify(id=RESEARCHER, name="Local Researcher", current_workspace_id=WORKSPACE)


@bp.get("/workspaces/")
def workspaces() -> Response:
    return paginate([{"id": WORKSPACE, "title": "Local workspace"}])


@bp.get("/workspaces/<wid>/balance/")
def balance(wid: str) -> Response:
    if wid != WORKSPACE:
        raise ApiError(404, f"Workspace {wid} not found.")
    store = service().store
    with store.tx() as db:
        cents = int(store.meta(db, "balance"))
    return jsonify(
        currency_code="USD",
        total_balance=cents,
        available_balance=cents,
        balance_breakdown={"rewards": 0, "fees": 0, "vat": 0},
    )


@bp.get("/filters/")
def filters() -> Response:
    return paginate(FILTERS)


# -- studies ------------------------------------------------------------------------------------
STUDY_REQUIRED = (
    "name",
    "description",
    "external_study_url",
    "estimated_completion_time",
    "reward",
    "total_available_places",
    "completion_codes",
)


def _study_out(store: Store, db: sqlite3.Connection, study: dict[str, Any]) -> dict[str, Any]:
    taken = db.execute(
        f"SELECT COUNT(*) FROM submission WHERE study_id = ? AND status IN "
        f"({','.join('?' * len(TAKES_PLACE))})",
        (study["id"], *TAKES_PLACE),
    ).fetchone()[0]
    total = db.execute("SELECT COUNT(*) FROM submission WHERE study_id = ?", (study["id"],))
    return study | {"places_taken": taken, "number_of_submissions": total.fetchone()[0]}


@bp.post("/studies/")
def create_study() -> tuple[Response, int]:
    data = body()
    missing = {f: ["This field is required."] for f in STUDY_REQUIRED if data.get(f) in (None, "")}
    if missing:
        raise ApiError(400, missing)
    codes = data["completion_codes"]
    problems = inputs.study_problems(data)
    if problems:
        raise ApiError(400, problems)
    store = service().store
    with store.tx() as db:
        study = {
            "id": new_id(),
            "name": data["name"],
            "internal_name": data.get("internal_name", ""),
            "description": data["description"],
            "external_study_url": data["external_study_url"],
            "prolific_id_option": data.get("prolific_id_option", "url_parameters"),
            "completion_codes": codes,
            "total_available_places": data["total_available_places"],
            "estimated_completion_time": data["estimated_completion_time"],
            "maximum_allowed_time": data.get("maximum_allowed_time")
            or 3 * data["estimated_completion_time"],
            "reward": data["reward"],
            "filters": data.get("filters", []),
            "device_compatibility": data.get("device_compatibility", []),
            "currency_code": "USD",
            "study_type": "SINGLE",
            "status": "UNPUBLISHED",
            "date_created": store.now(db),
            "published_at": None,
        }
        db.execute(
            "INSERT INTO study VALUES (?, '{}', 'UNPUBLISHED', ?)", (study["id"], store.seq(db))
        )
        store.save_study(db, study)
        out = _study_out(store, db, study)
    return jsonify(out), 201


def _study_or_404(store: Store, db: sqlite3.Connection, sid: str) -> dict[str, Any]:
    study = store.study(db, sid)
    if study is None:
        raise ApiError(404, f"Study {sid} not found.")
    return study


@bp.get("/studies/")
def list_studies() -> Response:
    store = service().store
    with store.tx() as db:
        ids = [r[0] for r in db.execute("SELECT id FROM study ORDER BY created").fetchall()]
        rows = [_study_out(store, db, _study_or_404(store, db, i)) for i in ids]
    return paginate(rows)


@bp.get("/studies/<sid>/")
def get_study(sid: str) -> Response:
    store = service().store
    with store.tx() as db:
        return jsonify(_study_out(store, db, _study_or_404(store, db, sid)))


def _place_cost(study: dict[str, Any]) -> int:
    reward = pricing.from_cents(study["reward"])
    return pricing.cents(reward + pricing.fees_on(reward, pricing.vat_regime()))


def _charge(store: Store, db: sqlite3.Connection, amount: int) -> None:
    left = int(store.meta(db, "balance"))
    if amount > left:
        raise ApiError(
            400, f"Insufficient balance: {amount} cents needed, {left} available.", 140002
        )
    store.set_meta(db, "balance", str(left - amount))


@bp.patch("/studies/<sid>/")
def update_study(sid: str) -> Response:
    data = body()
    store = service().store
    with store.tx() as db:
        study = _study_or_404(store, db, sid)
        places = data.get("total_available_places")
        if set(data) - {"total_available_places", "internal_name", "description"}:
            raise ApiError(
                400,
                "Only total_available_places, internal_name and description can be changed here.",
            )
        if places is not None:
            if not inputs.is_whole(places, study["total_available_places"], inputs.MAX_PLACES):
                raise ApiError(400, {"total_available_places": ["Places can only be increased."]})
            if study["status"] != "UNPUBLISHED":
                _charge(store, db, (places - study["total_available_places"]) * _place_cost(study))
            study["total_available_places"] = places
        for key in ("internal_name", "description"):
            if key in data:
                if not inputs.is_text(data[key]):
                    raise ApiError(
                        400, {key: [f"Must be text of at most {inputs.MAX_TEXT} characters."]}
                    )
                study[key] = data[key]
        store.save_study(db, study)
        return jsonify(_study_out(store, db, study))


MOVES = {
    "PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"),
    "PAUSE": ({"ACTIVE"}, "PAUSED"),
    "START": ({"PAUSED"}, "ACTIVE"),
    "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW"),
}


@bp.post("/studies/<sid>/transition/")
def transition_study(sid: str) -> Response:
    action = body().get("action")
    if not isinstance(action, str) or action not in MOVES:
        raise ApiError(400, {"action": [f"Must be one of {', '.join(MOVES)}."]})
    store = service().store
    with store.tx() as db:
        study = _study_or_404(store, db, sid)
        allowed, to = MOVES[action]
        if study["status"] == to:
            return jsonify(_study_out(store, db, study))  # repeating a move changes nothing
        if study["status"] not in allowed:
            raise ApiError(400, f"Cannot {action} a study that is {study['status']}.")
        if action == "PUBLISH":
            _charge(store, db, study["total_available_places"] * _place_cost(study))
            study["published_at"] = store.now(db)
        study["status"] = to
        store.save_study(db, study)
        return jsonify(_study_out(store, db, study))


# -- submissions -------------------------------------------------------------------------------
def submission_out(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "study_id": row["study_id"],
        "participant_id": row["participant_id"],
        "participant": row["participant_id"],
        "status": row["status"],
        "started_at": _iso(row["started"]),
        "completed_at": _iso(row["completed"]),
        "entered_code": row["entered_code"],
        "return_requested": _iso(row["return_requested"]),
        "bonus_payments": json.loads(row["bonuses"]),
    }


def _iso(when: float | None) -> str | None:
    from datetime import UTC, datetime

    return None if when is None else datetime.fromtimestamp(when, UTC).isoformat()


@bp.get("/submissions/")
def list_submissions() -> Response:
    sid = request.args.get("study")
    if not sid:
        raise ApiError(400, {"study": ["A study id is required."]})
    store = service().store
    with store.tx() as db:
        _study_or_404(store, db, sid)
        rows = db.execute(
            "SELECT * FROM submission WHERE study_id = ? ORDER BY seq", (sid,)
        ).fetchall()
    return paginate([submission_out(r) for r in rows])


def _submission_or_404(db: sqlite3.Connection, sub_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = db.execute(
        "SELECT * FROM submission WHERE id = ?", (sub_id,)
    ).fetchone()
    if row is None:
        raise ApiError(404, f"Submission {sub_id} not found.")
    return row


@bp.get("/submissions/<sub_id>/")
def get_submission(sub_id: str) -> Response:
    with service().store.tx() as db:
        return jsonify(submission_out(_submission_or_404(db, sub_id)))


def _decide(db: sqlite3.Connection, row: sqlite3.Row, data: dict[str, Any]) -> None:
    action = data.get("action")
    done = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}
    if not isinstance(action, str) or action not in done:
        raise ApiError(400, {"action": ["Must be APPROVE or REJECT."]})
    if row["status"] == done[action]:
        return  # idempotent: the same request again is ignored
    if row["status"] != "AWAITING REVIEW":
        raise ApiError(
            400,
            f"Submission {row['id']} is {row['status']}: only a submission "
            "awaiting review can be approved or rejected.",
        )
    if action == "REJECT":
        problems = {}
        message = data.get("message")
        if not isinstance(message, str) or not inputs.is_text(message) or len(message) < 100:
            problems["message"] = ["A rejection message of at least 100 characters is required."]
        category = data.get("rejection_category")
        if not isinstance(category, str) or category not in REJECTION_CATEGORIES:
            problems["rejection_category"] = [
                f"Must be one of {', '.join(sorted(REJECTION_CATEGORIES))}."
            ]
        if problems:
            raise ApiError(400, problems)
    db.execute("UPDATE submission SET status = ? WHERE id = ?", (done[action], row["id"]))
    notify(service().store, db, row["id"])


@bp.post("/submissions/<sub_id>/transition/")
def transition_submission(sub_id: str) -> Response:
    data = body()
    with service().store.tx() as db:
        _decide(db, _submission_or_404(db, sub_id), data)
        return jsonify(submission_out(_submission_or_404(db, sub_id)))


@bp.post("/submissions/bulk-approve/")
def bulk_approve() -> Response:
    data = body()
    with service().store.tx() as db:
        if "submission_ids" in data:
            rows = [
                _submission_or_404(db, s)
                for s in inputs.id_list(data["submission_ids"], "submission_ids")
            ]
        elif "study_id" in data and "participant_ids" in data:
            study_id = inputs.id_list([data["study_id"]], "study_id")[0]
            rows = [
                r
                for p in inputs.id_list(data["participant_ids"], "participant_ids")
                for r in db.execute(
                    "SELECT * FROM submission WHERE study_id = ? AND participant_id = ?",
                    (study_id, p),
                ).fetchall()
            ]
        else:
            raise ApiError(400, "Give submission_ids, or study_id and participant_ids.")
        for row in rows:
            _decide(db, row, {"action": "APPROVE"})
    return jsonify(
        message="The request to bulk approve has been queued. Please try again in a few seconds."
    )


@bp.post("/submissions/<sub_id>/request-return/")
def request_return(sub_id: str) -> Response:
    reasons = body().get("request_return_reasons")
    if not isinstance(reasons, list) or not reasons or not all(map(inputs.is_text, reasons)):
        raise ApiError(400, {"request_return_reasons": ["At least one reason is required."]})
    store = service().store
    with store.tx() as db:
        row = _submission_or_404(db, sub_id)
        if row["status"] not in ("ACTIVE", "AWAITING REVIEW"):
            raise ApiError(
                400,
                f"Submission {sub_id} is {row['status']}: a return can be asked "
                "of an active or completed submission only.",
            )
        db.execute(
            "UPDATE submission SET return_requested = ? WHERE id = ?", (store.now(db), sub_id)
        )
        return jsonify(submission_out(_submission_or_404(db, sub_id)))


# -- bonuses ------------------------------------------------------------------------------------
@bp.post("/submissions/bonus-payments/")
def set_up_bonuses() -> tuple[Response, int]:
    data = body()
    sid, csv = data.get("study_id"), data.get("csv_bonuses")
    if (
        not isinstance(sid, str)
        or not isinstance(csv, str)
        or not sid
        or not (inputs.is_text(sid, 200) and inputs.is_text(csv, 10**6))
    ):
        raise ApiError(400, "study_id and csv_bonuses are required.")
    store = service().store
    with store.tx() as db:
        _study_or_404(store, db, sid)
        rows, wrong, amount = [], [], Decimal(0)
        for line in filter(None, (x.strip() for x in csv.splitlines())):
            who, _, value = line.partition(",")
            took_part = db.execute(
                "SELECT id, participant_id FROM submission WHERE study_id = ? AND "
                "(id = ? OR participant_id = ?)",
                (sid, who, who),
            ).fetchone()
            try:
                plain = value.strip().isascii() and "_" not in value
                money = Decimal(value.strip()) if plain else Decimal(-1)
            except ArithmeticError:
                money = Decimal(-1)
            ceiling = Decimal(inputs.MAX_CENTS) / 100
            if took_part is None or not money.is_finite() or not 0 < money <= ceiling:
                wrong.append(who)
                continue
            rows.append([took_part["id"], pricing.cents(money)])
            amount += money
        if wrong:
            raise ApiError(
                400,
                f"These ids did not take part in the study, or their amounts "
                f"are not positive: {', '.join(wrong)}",
            )
        regime = pricing.vat_regime()
        fee = sum((pricing.service_fee(pricing.from_cents(c)) for _, c in rows), Decimal(0))
        vat = sum(
            (pricing.vat(pricing.service_fee(pricing.from_cents(c)), regime) for _, c in rows),
            Decimal(0),
        )
        bonus_id = new_id()
        db.execute(
            "INSERT INTO bonus VALUES (?, ?, ?, ?, ?, ?, 0)",
            (
                bonus_id,
                sid,
                json.dumps(rows),
                pricing.cents(amount),
                pricing.cents(fee),
                pricing.cents(vat),
            ),
        )
    total = pricing.cents(amount + fee + vat)
    return jsonify(
        id=bonus_id,
        study=sid,
        amount=pricing.cents(amount),
        fees=pricing.cents(fee),
        vat=pricing.cents(vat),
        total_amount=total,
    ), 201


@bp.post("/bulk-bonus-payments/<bonus_id>/pay/")
def pay_bonuses(bonus_id: str) -> tuple[Response, int]:
    """Pays every time it is called, as Prolific warns: the endpoint is not idempotent."""
    store = service().store
    with store.tx() as db:
        row = db.execute("SELECT * FROM bonus WHERE id = ?", (bonus_id,)).fetchone()
        if row is None:
            raise ApiError(404, f"Bulk bonus payment {bonus_id} not found.")
        _charge(store, db, row["amount"] + row["fees"] + row["vat"])
        for sub_id, cents in json.loads(row["rows"]):
            paid = json.loads(_submission_or_404(db, sub_id)["bonuses"]) + [cents]
            db.execute("UPDATE submission SET bonuses = ? WHERE id = ?", (json.dumps(paid), sub_id))
        db.execute("UPDATE bonus SET paid = paid + 1 WHERE id = ?", (bonus_id,))
    return jsonify({}), 202


# -- participant groups -------------------------------------------------------------------------
@bp.post("/participant-groups/")
def create_group() -> tuple[Response, int]:
    data = body()
    if not data.get("name") or not inputs.is_text(data["name"], 200):
        raise ApiError(400, {"name": ["This field is required: text of at most 200 characters."]})
    workspace = data.get("workspace_id") or WORKSPACE
    if not inputs.is_text(workspace, 200):
        raise ApiError(400, {"workspace_id": ["A workspace id."]})
    members = inputs.id_list(data.get("participant_ids") or [], "participant_ids")
    store = service().store
    with store.tx() as db:
        gid = new_id()
        db.execute(
            "INSERT INTO participant_group VALUES (?, ?, ?, ?)",
            (gid, data["name"], workspace, store.seq(db)),
        )
        for pid in members:
            db.execute("INSERT OR IGNORE INTO group_member VALUES (?, ?)", (gid, pid))
    return jsonify(id=gid, name=data["name"], workspace_id=workspace, is_active=True), 201


@bp.get("/participant-groups/")
def list_groups() -> Response:
    with service().store.tx() as db:
        rows = db.execute("SELECT * FROM participant_group ORDER BY seq").fetchall()
    return paginate(
        [
            {"id": r["id"], "name": r["name"], "workspace_id": r["workspace_id"], "is_active": True}
            for r in rows
        ]
    )


def _group_members(db: sqlite3.Connection, gid: str) -> Response:
    if db.execute("SELECT 1 FROM participant_group WHERE id = ?", (gid,)).fetchone() is None:
        raise ApiError(404, f"Participant group {gid} not found.")
    rows = db.execute(
        "SELECT participant_id FROM group_member WHERE group_id = ? ORDER BY participant_id", (gid,)
    ).fetchall()
    return paginate([{"participant_id": r[0]} for r in rows])


@bp.get("/participant-groups/<gid>/participants/")
def group_members(gid: str) -> Response:
    with service().store.tx() as db:
        return _group_members(db, gid)


@bp.post("/participant-groups/<gid>/participants/")
def add_members(gid: str) -> Response:
    ids = inputs.id_list(body().get("participant_ids"), "participant_ids")
    with service().store.tx() as db:
        if db.execute("SELECT 1 FROM participant_group WHERE id = ?", (gid,)).fetchone() is None:
            raise ApiError(404, f"Participant group {gid} not found.")
        for pid in ids:
            db.execute("INSERT OR IGNORE INTO group_member VALUES (?, ?)", (gid, pid))
        return _group_members(db, gid)


@bp.delete("/participant-groups/<gid>/participants/")
def remove_members(gid: str) -> Response:
    """Prolific's "remove participants from a participant group": members named are removed,
    others ignored; the answer lists who is in the group now."""
    ids = inputs.id_list(body().get("participant_ids"), "participant_ids")
    with service().store.tx() as db:
        if db.execute("SELECT 1 FROM participant_group WHERE id = ?", (gid,)).fetchone() is None:
            raise ApiError(404, f"Participant group {gid} not found.")
        for pid in ids:
            db.execute(
                "DELETE FROM group_member WHERE group_id = ? AND participant_id = ?", (gid, pid)
            )
        return _group_members(db, gid)
