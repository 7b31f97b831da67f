"""The requester API of the local Prolific service: ``/api/v1/...`` as Prolific answers it.

Implemented (everything harness's Prolific provider uses, and what a researcher's flow around
it uses): users/me, workspaces and their balance, filters (the list), studies (create, list,
get, edit, transition, a study's submissions), submissions (list by study, get, transition
APPROVE/REJECT, bulk approve, request return), bonuses (set up, pay: not idempotent, as on
Prolific, and paid after the call answers), participant groups (create, list, get, delete,
members, add and remove members); projects, messages and costs are in `research.py`. Study
transitions follow Prolific's study states: PUBLISH (UNPUBLISHED -> ACTIVE, refused below the
minimum hourly reward), PAUSE (ACTIVE -> PAUSED: no new place can be reserved), START (PAUSED
-> ACTIVE), STOP (ACTIVE or PAUSED -> AWAITING REVIEW); any other move is a 400 naming the
study's status. A study whose places are all taken and whose participants have all finished
goes to AWAITING REVIEW by itself, and back to ACTIVE when a place is freed (a rejection, a
return, a time-out) or added. Pagination is Prolific's: ``?page=&page_size=`` with ``_links``
(self, next, previous, last) and ``meta.count``.
"""

from __future__ import annotations

import json
import math
import sqlite3
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.prolific import pricing
from harness.providers.prolific.local_service import inputs
from harness.providers.prolific.local_service.app import ApiError, service
from harness.providers.prolific.local_service.outbox import notify
from harness.providers.prolific.local_service.state import RESEARCHER, WORKSPACE, Store, new_id
from harness.providers.prolific.requests import COUNTRY_NAMES

bp = Blueprint("prolific_api", __name__, url_prefix="/api/v1")

COUNTRIES = {str(n): name for n, name in enumerate(COUNTRY_NAMES.values())}
"""The country filter's choices: the names Prolific lists (as harness's requests know them),
by choice ids of the service's own."""
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
WORKING = ("RESERVED", "ACTIVE")


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
            changed(store, db, sub_id)
    pay_due_bonuses(store, db, now)


def changed(store: Store, db: sqlite3.Connection, submission_id: str) -> None:
    """A submission's status changed: tell the hooks, and move its study if that filled or
    freed its places. Call inside the transaction that changed it."""
    notify(store, db, submission_id)
    row = db.execute("SELECT study_id FROM submission WHERE id = ?", (submission_id,)).fetchone()
    if row is not None:
        study = store.study(db, row["study_id"])
        if study is not None:
            settle_study(store, db, study)


def settle_study(store: Store, db: sqlite3.Connection, study: dict[str, Any]) -> None:
    """ACTIVE with every place taken and nobody working -> AWAITING REVIEW; AWAITING REVIEW
    (not stopped) with a place free again -> ACTIVE, as Prolific moves a study by itself."""
    free = free_places(db, study)
    if study["status"] == "ACTIVE" and free <= 0 and not _count(db, study["id"], WORKING):
        study["status"] = "AWAITING REVIEW"
    elif study["status"] == "AWAITING REVIEW" and free > 0 and not study.get("stopped"):
        study["status"] = "ACTIVE"
    else:
        return
    store.save_study(db, study)


def free_places(db: sqlite3.Connection, study: dict[str, Any]) -> int:
    return int(study["total_available_places"]) - _count(db, study["id"], TAKES_PLACE)


def _count(db: sqlite3.Connection, study_id: str, states: tuple[str, ...]) -> int:
    marks = ",".join("?" * len(states))
    found = db.execute(
        f"SELECT COUNT(*) FROM submission WHERE study_id = ? AND status IN ({marks})",
        (study_id, *states),
    ).fetchone()
    return int(found[0])


def pay_due_bonuses(store: Store, db: sqlite3.Connection, now: float) -> None:
    """Make the bonus payments asked for at least ``store.bonus_delay`` seconds ago (Prolific
    pays asynchronously: a payment is made by a request after the pay call)."""
    for row in db.execute(
        "SELECT * FROM bonus_payment WHERE paid IS NULL AND asked + ? <= ? ORDER BY id",
        (store.bonus_delay, now),
    ).fetchall():
        bonus = db.execute("SELECT rows FROM bonus WHERE id = ?", (row["bonus_id"],)).fetchone()
        for sub_id, cents in json.loads(bonus["rows"]):
            paid = json.loads(submission_or_404(db, sub_id)["bonuses"]) + [cents]
            db.execute("UPDATE submission SET bonuses = ? WHERE id = ?", (json.dumps(paid), sub_id))
        db.execute("UPDATE bonus_payment SET paid = ? WHERE id = ?", (now, row["id"]))


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
    return jsonify(
        id=RESEARCHER,
        email="researcher@prolific.local",
        name="Local Researcher",
        current_workspace_id=WORKSPACE,
    )


def workspace_or_404(wid: str) -> dict[str, Any]:
    if wid != WORKSPACE:
        raise ApiError(404, f"Workspace {wid} not found.")
    return {"id": WORKSPACE, "title": "Local workspace", "owner": RESEARCHER}


@bp.get("/workspaces/")
def workspaces() -> Response:
    return paginate([workspace_or_404(WORKSPACE)])


@bp.get("/workspaces/<wid>/")
def workspace(wid: str) -> Response:
    return jsonify(workspace_or_404(wid))


@bp.get("/workspaces/<wid>/balance/")
def balance(wid: str) -> Response:
    workspace_or_404(wid)
    store = service().store
    with store.tx() as db:
        cents = int(store.meta(db, "balance"))
        currency = store.currency(db)
    return jsonify(
        currency_code=currency,
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


STUDY_FIELDS = (
    *STUDY_REQUIRED,
    "internal_name",
    "prolific_id_option",
    "maximum_allowed_time",
    "filters",
    "device_compatibility",
    "project",
)
"""What a draft's body may set (and a PATCH of a draft may change)."""
UNIMITATED = (
    "peripheral_requirements",
    "filter_set_id",
    "filter_set_version",
    "naivety_distribution_rate",
    "submissions_config",
    "study_labels",
    "content_warnings",
    "content_warning_details",
    "metadata",
    "access_details",
)
"""Fields of Prolific's study that the service accepts only empty (a generated client sends
them so): set, they would change what Prolific does, which the service does not imitate."""
LIVE_FIELDS = ("total_available_places", "internal_name", "description")
"""What a PATCH of a published study may change."""


def _study_out(store: Store, db: sqlite3.Connection, study: dict[str, Any]) -> dict[str, Any]:
    taken = _count(db, study["id"], TAKES_PLACE)
    total = db.execute("SELECT COUNT(*) FROM submission WHERE study_id = ?", (study["id"],))
    shown = {k: v for k, v in study.items() if k != "stopped"}
    return shown | {"places_taken": taken, "number_of_submissions": total.fetchone()[0]}


def iso(when: float | None) -> str | None:
    """A time of the service's clock as Prolific writes times (ISO 8601, UTC)."""
    return None if when is None else datetime.fromtimestamp(when, UTC).isoformat()


def _study_problems(db: sqlite3.Connection, data: dict[str, Any]) -> dict[str, list[str]]:
    """Problems of a draft's whole body: fields, filters Prolific has, the project."""
    problems = inputs.study_problems(data, {f["filter_id"] for f in FILTERS})
    for name in UNIMITATED:
        if data.get(name) not in (None, "", [], {}):
            problems[name] = ["The local Prolific service does not imitate this field."]
    project = data.get("project")
    if project is not None and (
        not inputs.is_text(project, 200)
        or db.execute("SELECT 1 FROM project WHERE id = ?", (project,)).fetchone() is None
    ):
        problems["project"] = [f"Project {project!r} not found."]
    return problems


@bp.post("/studies/")
def create_study() -> tuple[Response, int]:
    data = inputs.json_object()
    missing = {f: ["This field is required."] for f in STUDY_REQUIRED if data.get(f) in (None, "")}
    if missing:
        raise ApiError(400, missing)
    store = service().store
    with store.tx() as db:
        problems = _study_problems(db, data)
        if problems:
            raise ApiError(400, problems)
        default_project = db.execute("SELECT id FROM project ORDER BY seq").fetchone()[0]
        given = {f: data[f] for f in STUDY_FIELDS if f in data}
        defaults = {
            "internal_name": "",
            "prolific_id_option": "url_parameters",
            "filters": [],
            "device_compatibility": [],
        }
        study = defaults | given
        study |= {
            "id": new_id(),
            "maximum_allowed_time": data.get("maximum_allowed_time")
            or 3 * data["estimated_completion_time"],
            "project": data.get("project") or default_project,
            "currency_code": store.currency(db),
            "study_type": "SINGLE",
            "status": "UNPUBLISHED",
            "date_created": iso(store.now(db)),
            "published_at": None,
        }
        db.execute(
            "INSERT INTO study VALUES (?, '{}', 'UNPUBLISHED', ?)", (study["id"], store.seq(db))
        )
        store.save_study(db, study)
        out = _study_out(store, db, study)
    return jsonify(out), 201


def study_or_404(store: Store, db: sqlite3.Connection, sid: str) -> dict[str, Any]:
    study = store.study(db, sid)
    if study is None:
        raise ApiError(404, f"Study {sid} not found.")
    return study


@bp.get("/studies/")
def list_studies() -> Response:
    return paginate(studies_in())


def studies_in(project: str | None = None) -> list[dict[str, Any]]:
    """Every study (of ``project``), oldest first."""
    store = service().store
    with store.tx() as db:
        ids = [r[0] for r in db.execute("SELECT id FROM study ORDER BY created").fetchall()]
        rows = [_study_out(store, db, study_or_404(store, db, i)) for i in ids]
    return [r for r in rows if project is None or r.get("project") == project]


@bp.get("/studies/<sid>/")
def get_study(sid: str) -> Response:
    store = service().store
    with store.tx() as db:
        return jsonify(_study_out(store, db, study_or_404(store, db, sid)))


def place_cost(reward_cents: int) -> int:
    """What one place costs the workspace: the reward, the fee and VAT on it."""
    reward = pricing.from_cents(reward_cents)
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
    data = inputs.json_object()
    store = service().store
    with store.tx() as db:
        study = study_or_404(store, db, sid)
        if study["status"] == "UNPUBLISHED":
            return jsonify(_edit_draft(store, db, study, data))
        places = data.get("total_available_places")
        if set(data) - set(LIVE_FIELDS):
            raise ApiError(
                400,
                f"Study {sid} is {study['status']}: only {', '.join(LIVE_FIELDS)} "
                "can be changed once it is published.",
            )
        if places is not None:
            if not inputs.is_whole(places, study["total_available_places"], inputs.MAX_PLACES):
                raise ApiError(400, {"total_available_places": ["Places can only be increased."]})
            _charge(
                store, db, (places - study["total_available_places"]) * place_cost(study["reward"])
            )
            study["total_available_places"] = places
        for key in ("internal_name", "description"):
            if key in data:
                if not inputs.is_text(data[key]):
                    raise ApiError(
                        400, {key: [f"Must be text of at most {inputs.MAX_TEXT} characters."]}
                    )
                study[key] = data[key]
        store.save_study(db, study)
        settle_study(store, db, study)
        return jsonify(_study_out(store, db, study))


def _edit_draft(
    store: Store, db: sqlite3.Connection, study: dict[str, Any], data: dict[str, Any]
) -> dict[str, Any]:
    """A draft takes any field a new study takes, checked as a whole again."""
    unknown = sorted(set(data) - set(STUDY_FIELDS) - set(UNIMITATED))
    if unknown:
        raise ApiError(400, {k: ["This field cannot be set."] for k in unknown})
    problems = _study_problems(db, study | data)
    if problems:
        raise ApiError(400, problems)
    edited = study | {k: v for k, v in data.items() if k in STUDY_FIELDS}
    store.save_study(db, edited)
    return _study_out(store, db, edited)


MOVES = {
    "PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"),
    "PAUSE": ({"ACTIVE"}, "PAUSED"),
    "START": ({"PAUSED"}, "ACTIVE"),
    "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW"),
}


@bp.post("/studies/<sid>/transition/")
def transition_study(sid: str) -> Response:
    action = inputs.json_object().get("action")
    if not isinstance(action, str) or action not in MOVES:
        raise ApiError(400, {"action": [f"Must be one of {', '.join(MOVES)}."]})
    store = service().store
    with store.tx() as db:
        study = study_or_404(store, db, sid)
        allowed, to = MOVES[action]
        if study["status"] == to:
            return jsonify(_study_out(store, db, study))  # repeating a move changes nothing
        if study["status"] not in allowed:
            raise ApiError(400, f"Cannot {action} a study that is {study['status']}.")
        if action == "PUBLISH":
            _check_pay(store, db, study)
            _charge(store, db, study["total_available_places"] * place_cost(study["reward"]))
            study["published_at"] = iso(store.now(db))
        if action == "STOP":
            study["stopped"] = True
        study["status"] = to
        store.save_study(db, study)
        return jsonify(_study_out(store, db, study))


def _check_pay(store: Store, db: sqlite3.Connection, study: dict[str, Any]) -> None:
    """Prolific refuses to publish a study paying less than its minimum hourly reward."""
    currency = store.currency(db)
    reward = pricing.from_cents(study["reward"])
    rate = pricing.per_hour(reward, int(study["estimated_completion_time"]))
    least = pricing.minimum_per_hour(currency)
    if rate < least:
        raise ApiError(
            400,
            {
                "reward": [
                    f"The reward of {study['reward']} ({currency} minor units) for "
                    f"{study['estimated_completion_time']} minutes is {rate} {currency} per "
                    f"hour, below the minimum of {least} {currency} per hour."
                ]
            },
        )


# -- submissions -------------------------------------------------------------------------------
def submission_out(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "study_id": row["study_id"],
        "participant_id": row["participant_id"],
        "participant": row["participant_id"],
        "status": row["status"],
        "started_at": iso(row["started"]),
        "completed_at": iso(row["completed"]),
        "entered_code": row["entered_code"],
        "return_requested": iso(row["return_requested"]),
        "bonus_payments": json.loads(row["bonuses"]),
    }


def _submission_short(row: sqlite3.Row) -> dict[str, Any]:
    """A submission as Prolific lists them (a participant takes part once here: no
    siblings)."""
    return {
        "id": row["id"],
        "participant_id": row["participant_id"],
        "status": row["status"],
        "started_at": iso(row["started"]),
        "completed_at": iso(row["completed"]),
        "has_siblings": False,
        "study_code": row["entered_code"],
    }


@bp.get("/submissions/")
def list_submissions() -> Response:
    sid = request.args.get("study")
    if not sid:
        raise ApiError(400, {"study": ["A study id is required."]})
    return study_submissions(sid)


@bp.get("/studies/<sid>/submissions/")
def study_submissions(sid: str) -> Response:
    store = service().store
    with store.tx() as db:
        study_or_404(store, db, sid)
        rows = db.execute(
            "SELECT * FROM submission WHERE study_id = ? ORDER BY seq", (sid,)
        ).fetchall()
    return paginate([_submission_short(r) for r in rows])


def row_or_404(db: sqlite3.Connection, table: str, row_id: str, what: str) -> sqlite3.Row:
    """The row of ``table`` with id ``row_id``, or 404 as Prolific says it ("<what> <id> not
    found.")."""
    row: sqlite3.Row | None = db.execute(
        f"SELECT * FROM {table} WHERE id = ?", (row_id,)
    ).fetchone()
    if row is None:
        raise ApiError(404, f"{what} {row_id} not found.")
    return row


def submission_or_404(db: sqlite3.Connection, sub_id: str) -> sqlite3.Row:
    return row_or_404(db, "submission", sub_id, "Submission")


@bp.get("/submissions/<sub_id>/")
def get_submission(sub_id: str) -> Response:
    with service().store.tx() as db:
        return jsonify(submission_out(submission_or_404(db, sub_id)))


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
    changed(service().store, db, row["id"])


@bp.post("/submissions/<sub_id>/transition/")
def transition_submission(sub_id: str) -> Response:
    data = inputs.json_object()
    with service().store.tx() as db:
        _decide(db, submission_or_404(db, sub_id), data)
        return jsonify(submission_out(submission_or_404(db, sub_id)))


@bp.post("/submissions/bulk-approve/")
def bulk_approve() -> Response:
    data = inputs.json_object()
    with service().store.tx() as db:
        if "submission_ids" in data:
            rows = [
                submission_or_404(db, s)
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
    reasons = inputs.json_object().get("request_return_reasons")
    if not isinstance(reasons, list) or not reasons or not all(map(inputs.is_text, reasons)):
        raise ApiError(400, {"request_return_reasons": ["At least one reason is required."]})
    store = service().store
    with store.tx() as db:
        row = submission_or_404(db, sub_id)
        if row["status"] not in ("ACTIVE", "AWAITING REVIEW"):
            raise ApiError(
                400,
                f"Submission {sub_id} is {row['status']}: a return can be asked "
                "of an active or completed submission only.",
            )
        db.execute(
            "UPDATE submission SET return_requested = ? WHERE id = ?", (store.now(db), sub_id)
        )
        return jsonify(submission_out(submission_or_404(db, sub_id)))


# -- bonuses ------------------------------------------------------------------------------------
@bp.post("/submissions/bonus-payments/")
def set_up_bonuses() -> tuple[Response, int]:
    data = inputs.json_object()
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
        study_or_404(store, db, sid)
        rows, wrong, amount = [], [], Decimal(0)
        for line in filter(None, (x.strip() for x in csv.splitlines())):
            who, _, value = line.partition(",")
            took_part = db.execute(
                "SELECT id, participant_id FROM submission WHERE study_id = ? AND "
                "(id = ? OR participant_id = ?)",
                (sid, who, who),
            ).fetchone()
            money = inputs.amount(value)
            if took_part is None or money is None:
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
        fee, vat = fee_and_vat([c for _, c in rows])
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


def fee_and_vat(amounts: list[int]) -> tuple[Decimal, Decimal]:
    """Prolific's fee on each of ``amounts`` (minor units), and the VAT on those fees, summed."""
    regime = pricing.vat_regime()
    fees = [pricing.service_fee(pricing.from_cents(a)) for a in amounts]
    return sum(fees, Decimal(0)), sum((pricing.vat(f, regime) for f in fees), Decimal(0))


@bp.post("/bulk-bonus-payments/<bonus_id>/pay/")
def pay_bonuses(bonus_id: str) -> tuple[Response, int]:
    """Pays every time it is called, as Prolific warns: the endpoint is not idempotent. The
    balance is charged now; the participants are paid asynchronously (`pay_due_bonuses`):
    the answer is 202, and ``bonus_payments`` shows the payment only once it is made."""
    store = service().store
    with store.tx() as db:
        row = row_or_404(db, "bonus", bonus_id, "Bulk bonus payment")
        _charge(store, db, row["amount"] + row["fees"] + row["vat"])
        db.execute(
            "INSERT INTO bonus_payment (bonus_id, asked) VALUES (?, ?)", (bonus_id, store.now(db))
        )
        db.execute("UPDATE bonus SET paid = paid + 1 WHERE id = ?", (bonus_id,))
    return jsonify("The bonus payment is queued."), 202


# -- participant groups -------------------------------------------------------------------------
@bp.post("/participant-groups/")
def create_group() -> tuple[Response, int]:
    data = inputs.json_object()
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
    return jsonify(
        id=gid, name=data["name"], workspace_id=workspace, participant_count=len(members)
    ), 201


def _group_out(db: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    count = db.execute("SELECT COUNT(*) FROM group_member WHERE group_id = ?", (row["id"],))
    return {
        "id": row["id"],
        "name": row["name"],
        "workspace_id": row["workspace_id"],
        "participant_count": count.fetchone()[0],
        "is_deleted": False,
    }


@bp.get("/participant-groups/")
def list_groups() -> Response:
    with service().store.tx() as db:
        rows = db.execute("SELECT * FROM participant_group ORDER BY seq").fetchall()
        return paginate([_group_out(db, r) for r in rows])


@bp.get("/participant-groups/<gid>/")
def get_group(gid: str) -> Response:
    with service().store.tx() as db:
        return jsonify(
            _group_out(db, row_or_404(db, "participant_group", gid, "Participant group"))
        )


@bp.delete("/participant-groups/<gid>/")
def delete_group(gid: str) -> tuple[str, int]:
    """Prolific deletes a group (204); a study whose blocklist named it no longer blocks by
    it."""
    with service().store.tx() as db:
        row_or_404(db, "participant_group", gid, "Participant group")
        db.execute("DELETE FROM group_member WHERE group_id = ?", (gid,))
        db.execute("DELETE FROM participant_group WHERE id = ?", (gid,))
    return "", 204


def _group_members(db: sqlite3.Connection, gid: str) -> Response:
    row_or_404(db, "participant_group", gid, "Participant group")
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
    ids = inputs.id_list(inputs.json_object().get("participant_ids"), "participant_ids")
    with service().store.tx() as db:
        row_or_404(db, "participant_group", gid, "Participant group")
        for pid in ids:
            db.execute("INSERT OR IGNORE INTO group_member VALUES (?, ?)", (gid, pid))
        return _group_members(db, gid)


@bp.delete("/participant-groups/<gid>/participants/")
def remove_members(gid: str) -> Response:
    """Prolific's "remove participants from a participant group": members named are removed,
    others ignored; the answer lists who is in the group now."""
    ids = inputs.id_list(inputs.json_object().get("participant_ids"), "participant_ids")
    with service().store.tx() as db:
        row_or_404(db, "participant_group", gid, "Participant group")
        for pid in ids:
            db.execute(
                "DELETE FROM group_member WHERE group_id = ? AND participant_id = ?", (gid, pid)
            )
        return _group_members(db, gid)
