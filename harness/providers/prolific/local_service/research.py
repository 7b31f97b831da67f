"""The local Prolific service's projects, messages and costs, as Prolific's API v1 has them.

A workspace holds projects (a default one made with the service's file); a study belongs to one
(``project`` in its body, else the default). Messages go from the researcher to a participant
of one of the workspace's studies and are listed by participant. Costs are in the workspace's
minor unit: the calculator prices places before a study exists, a study's cost splits its
rewards and its bonuses into reward, fee and tax.
"""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.prolific import pricing
from harness.providers.prolific.local_service import inputs
from harness.providers.prolific.local_service.api import (
    fee_and_vat,
    iso,
    paginate,
    place_cost,
    row_or_404,
    studies_in,
    study_or_404,
    workspace_or_404,
)
from harness.providers.prolific.local_service.app import ApiError, service
from harness.providers.prolific.local_service.state import RESEARCHER, WORKSPACE, new_id

bp = Blueprint("prolific_research", __name__, url_prefix="/api/v1")


# -- projects -----------------------------------------------------------------------------------
def _project_out(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "title": row["title"],
        "workspace": row["workspace_id"],
        "owner": RESEARCHER,
    }


@bp.get("/workspaces/<wid>/projects/")
def projects(wid: str) -> Response:
    workspace_or_404(wid)
    with service().store.tx() as db:
        rows = db.execute("SELECT * FROM project WHERE workspace_id = ? ORDER BY seq", (wid,))
        return paginate([_project_out(r) for r in rows.fetchall()])


@bp.post("/workspaces/<wid>/projects/")
def create_project(wid: str) -> tuple[Response, int]:
    workspace_or_404(wid)
    title = inputs.json_object().get("title")
    if not isinstance(title, str) or not title.strip() or not inputs.is_text(title, 200):
        raise ApiError(400, {"title": ["This field is required: text of at most 200 characters."]})
    store = service().store
    with store.tx() as db:
        pid = new_id()
        db.execute("INSERT INTO project VALUES (?, ?, ?, ?)", (pid, title, wid, store.seq(db)))
        return jsonify(_project_out(row_or_404(db, "project", pid, "Project"))), 201


@bp.get("/projects/<pid>/")
def project(pid: str) -> Response:
    with service().store.tx() as db:
        return jsonify(_project_out(row_or_404(db, "project", pid, "Project")))


@bp.get("/projects/<pid>/studies/")
def project_studies(pid: str) -> Response:
    with service().store.tx() as db:
        row_or_404(db, "project", pid, "Project")
    return paginate(studies_in(pid))


# -- messages -----------------------------------------------------------------------------------
@bp.post("/messages/")
def send_message() -> tuple[str, int]:
    data = inputs.json_object()
    problems = {
        name: [f"This field is required: text of at most {limit} characters."]
        for name, limit in (("recipient_id", 200), ("study_id", 200), ("body", inputs.MAX_TEXT))
        if not isinstance(data.get(name), str)
        or not data[name]
        or not inputs.is_text(data[name], limit)
    }
    if problems:
        raise ApiError(400, problems)
    store = service().store
    with store.tx() as db:
        took_part = db.execute(
            "SELECT 1 FROM submission WHERE study_id = ? AND participant_id = ?",
            (data["study_id"], data["recipient_id"]),
        ).fetchone()
        if took_part is None:
            raise ApiError(
                400,
                f"Participant {data['recipient_id']} has not taken part in study "
                f"{data['study_id']}.",
            )
        db.execute(
            "INSERT INTO message (sender_id, recipient_id, study_id, body, sent) "
            "VALUES (?, ?, ?, ?, ?)",
            (RESEARCHER, data["recipient_id"], data["study_id"], data["body"], store.now(db)),
        )
    return "", 204


@bp.get("/messages/")
def messages() -> Response:
    """The messages with one participant (``user_id``), oldest first (not paged: Prolific
    answers ``results`` alone)."""
    who = request.args.get("user_id", "")
    if not who:
        raise ApiError(400, {"user_id": ["A participant id is required."]})
    with service().store.tx() as db:
        rows = db.execute(
            "SELECT * FROM message WHERE recipient_id = ? ORDER BY id", (who,)
        ).fetchall()
    return jsonify(
        results=[
            {
                "sender_id": r["sender_id"],
                "body": r["body"],
                "sent_at": iso(r["sent"]),
                "channel_id": f"{r['recipient_id']}-{WORKSPACE}",
                "type": "message",
                "data": {"study_id": r["study_id"]},
            }
            for r in rows
        ]
    )


# -- costs --------------------------------------------------------------------------------------
@bp.post("/study-cost-calculator/")
def cost_calculator() -> Response:
    """What a study of ``total_available_places`` paying ``reward`` each would cost."""
    data = inputs.json_object()
    problems = {
        name: [f"Must be a whole number from 1 to {high}."]
        for name, high in (
            ("reward", inputs.MAX_CENTS),
            ("total_available_places", inputs.MAX_PLACES),
        )
        if not inputs.is_whole(data.get(name), 1, high)
    }
    if problems:
        raise ApiError(400, problems)
    return jsonify(total_cost=place_cost(data["reward"]) * data["total_available_places"])


def _breakdown(amounts: list[int], currency: str) -> dict[str, Any]:
    """Rewards, fees and tax on each of ``amounts`` (minor units), in Prolific's shape."""
    rewards = sum((pricing.from_cents(a) for a in amounts), Decimal(0))
    fees, tax = fee_and_vat(amounts)
    return {
        name: {"amount": pricing.cents(value), "currency": currency}
        for name, value in (("rewards", rewards), ("fees", fees), ("tax", tax))
    }


@bp.get("/studies/<sid>/cost/")
def study_cost(sid: str) -> Response:
    """A study's cost: its places' rewards (all of them, as charged when it was published)
    and the bonuses paid so far, each with fee and tax."""
    store = service().store
    with store.tx() as db:
        study = study_or_404(store, db, sid)
        currency = store.currency(db)
        rows = db.execute(
            "SELECT b.rows FROM bonus_payment p JOIN bonus b ON b.id = p.bonus_id "
            "WHERE b.study_id = ?",
            (sid,),
        ).fetchall()
    bonuses = [cents for r in rows for _sub, cents in json.loads(r["rows"])]
    places = [int(study["reward"])] * int(study["total_available_places"])
    rewards = _breakdown(places, currency) | {
        "rep_sample_fees": {"amount": 0, "currency": currency},
        "rep_sample_tax": {"amount": 0, "currency": currency},
    }
    return jsonify(rewards=rewards, bonuses=_breakdown(bonuses, currency))
