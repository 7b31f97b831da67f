"""The participant side of the local Prolific service, for simulated or human participants.

Plain HTTP, JSON answers; every call names the participant (``participant_id``), who may state a
profile kept for later calls (``country`` as a name Prolific lists, e.g. "United States";
``approval_rate``; ``approvals``).

| call | what it does |
| --- | --- |
| ``GET /participant/studies?participant_id=...`` | active studies with a free place that the participant is eligible for (a paused study is not listed) |
| ``POST /participant/studies/<id>/join`` | takes a place: a submission (ACTIVE) and the study URL with the three ids (409 while the study is paused) |
| ``GET /submissions/complete?cc=CODE&participant_id=...`` | Prolific's completion URL: the participant's active submission of the study with that code goes to AWAITING REVIEW |
| ``POST /participant/submissions/<id>/return`` | returns the submission (RETURNED, the place is free again) |

A submission not completed within the study's maximum allowed time is TIMED-OUT (the clock can be
moved: ``POST /_control/clock {"advance": seconds}``).
"""  # noqa: E501

from __future__ import annotations

import json
import sqlite3
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.prolific.local_service import inputs
from harness.providers.prolific.local_service.api import (
    COUNTRIES,
    changed,
    free_places,
    submission_or_404,
    submission_out,
    sweep,
)
from harness.providers.prolific.local_service.app import ApiError, service
from harness.providers.prolific.local_service.state import Store, new_id

bp = Blueprint("prolific_participants", __name__)


def _participant(store: Store, db: sqlite3.Connection) -> tuple[str, dict[str, Any]]:
    """Who is calling, with the profile they state now merged into the one kept (refused,
    and nothing kept, when a stated value is not what Prolific would hold)."""
    sent = inputs.json_object() if request.is_json else {}
    data = dict(request.args) | sent | dict(request.form)
    given = data.get("participant_id")
    pid = given.strip() if isinstance(given, str) and inputs.is_text(given, 200) else ""
    if not pid:
        raise ApiError(400, {"participant_id": ["This field is required: a participant id."]})
    problems = inputs.profile_problems(data)
    if problems:
        raise ApiError(400, problems)
    row = db.execute("SELECT profile FROM participant WHERE id = ?", (pid,)).fetchone()
    profile = json.loads(row[0]) if row else {}
    for key in ("country", "approval_rate", "approvals"):
        if key in data:
            profile[key] = data[key]
    db.execute("INSERT OR REPLACE INTO participant VALUES (?, ?)", (pid, json.dumps(profile)))
    return pid, profile


def eligible(
    db: sqlite3.Connection, study: dict[str, Any], pid: str, profile: dict[str, Any]
) -> str | None:
    """Why the participant may not take the study (None: they may)."""
    for f in study.get("filters") or []:
        fid = f.get("filter_id")
        if fid == "current-country-of-residence":
            names = {COUNTRIES.get(str(v)) for v in f.get("selected_values", [])}
            if profile.get("country") not in names:
                return "not in the study's countries"
        elif fid in ("approval_rate", "approval_numbers"):
            key = "approval_rate" if fid == "approval_rate" else "approvals"
            low, high = inputs.PROFILE[key]
            value = inputs.number(profile.get(key, 100 if key == "approval_rate" else 0), low, high)
            bounds = f.get("selected_range") or {}
            lower = inputs.number(bounds.get("lower", -1e18), -1e18, 1e18)
            upper = inputs.number(bounds.get("upper", 1e18), -1e18, 1e18)
            if value is None or lower is None or upper is None or not lower <= value <= upper:
                return f"outside the study's {fid.replace('_', ' ')}"
        elif fid == "participant_group_blocklist":
            groups = f.get("selected_values", [])
            marks = ",".join("?" * len(groups)) or "''"
            hit = db.execute(
                f"SELECT 1 FROM group_member WHERE participant_id = ? AND group_id IN ({marks})",
                (pid, *groups),
            ).fetchone()
            if hit is not None:
                return "on the study's blocklist"
    return None


@bp.get("/participant/studies")
def studies() -> Response:
    store = service().store
    with store.tx() as db:
        sweep(store, db)
        pid, profile = _participant(store, db)
        out = []
        for (sid,) in db.execute("SELECT id FROM study WHERE status = 'ACTIVE' ORDER BY created"):
            study = store.study(db, sid)
            assert study is not None
            done = db.execute(
                "SELECT 1 FROM submission WHERE study_id = ? AND participant_id = ?", (sid, pid)
            ).fetchone()
            why = eligible(db, study, pid, profile)
            if done is None and why is None and free_places(db, study) > 0:
                out.append(
                    {
                        "id": sid,
                        "name": study["name"],
                        "reward": study["reward"],
                        "estimated_completion_time": study["estimated_completion_time"],
                    }
                )
    return jsonify(results=out)


@bp.post("/participant/studies/<sid>/join")
def join(sid: str) -> tuple[Response, int]:
    store = service().store
    with store.tx() as db:
        sweep(store, db)
        pid, profile = _participant(store, db)
        study = store.study(db, sid)
        if study is not None and study["status"] == "PAUSED":
            raise ApiError(
                409, "This study is paused: no place can be reserved now.", 140904, "Conflict"
            )
        if study is None or study["status"] != "ACTIVE":
            raise ApiError(404, f"Study {sid} is not open.")
        if db.execute(
            "SELECT 1 FROM submission WHERE study_id = ? AND participant_id = ?", (sid, pid)
        ).fetchone():
            raise ApiError(409, "You have already taken part in this study.", 140901, "Conflict")
        why = eligible(db, study, pid, profile)
        if why is not None:
            raise ApiError(403, f"You are not eligible for this study: {why}.")
        if free_places(db, study) <= 0:
            raise ApiError(409, "This study has no free place.", 140902, "Conflict")
        sub_id = new_id()
        db.execute(
            "INSERT INTO submission (id, study_id, participant_id, status, started, seq) "
            "VALUES (?, ?, ?, 'ACTIVE', ?, ?)",
            (sub_id, sid, pid, store.now(db), store.seq(db)),
        )
        changed(store, db, sub_id)
        url = (
            study["external_study_url"]
            .replace("{{%PROLIFIC_PID%}}", pid)
            .replace("{{%STUDY_ID%}}", sid)
            .replace("{{%SESSION_ID%}}", sub_id)
        )
    answer = jsonify(submission_id=sub_id, study_url=url)
    answer.set_cookie("prolific_local_pid", pid, httponly=True, samesite="Lax")
    return answer, 201


@bp.get("/submissions/complete")
def complete() -> Response:
    """Prolific's completion URL: the participant's active submission whose study has this
    completion code becomes AWAITING REVIEW."""
    code = request.args.get("cc", "")
    store = service().store
    with store.tx() as db:
        sweep(store, db)
        pid = request.args.get("participant_id") or request.cookies.get("prolific_local_pid")
        if not pid:
            raise ApiError(400, "Who is completing? (no participant_id, no cookie)")
        for row in db.execute(
            "SELECT * FROM submission WHERE participant_id = ? AND status = "
            "'ACTIVE' ORDER BY seq DESC",
            (pid,),
        ).fetchall():
            study = store.study(db, row["study_id"])
            assert study is not None
            if code in {c.get("code") for c in study["completion_codes"]}:
                db.execute(
                    "UPDATE submission SET status = 'AWAITING REVIEW', completed = ?, "
                    "entered_code = ? WHERE id = ?",
                    (store.now(db), code, row["id"]),
                )
                changed(store, db, row["id"])
                return jsonify(submission_out(submission_or_404(db, row["id"])))
    raise ApiError(400, f"{code!r} is not the completion code of a study you are taking.")


@bp.post("/participant/submissions/<sub_id>/return")
def give_back(sub_id: str) -> Response:
    store = service().store
    with store.tx() as db:
        row = submission_or_404(db, sub_id)
        if row["status"] not in ("RESERVED", "ACTIVE", "AWAITING REVIEW"):
            raise ApiError(
                409,
                f"Submission {sub_id} is {row['status']}: it cannot be returned.",
                140903,
                "Conflict",
            )
        db.execute("UPDATE submission SET status = 'RETURNED' WHERE id = ?", (sub_id,))
        changed(store, db, sub_id)
        return jsonify(submission_out(submission_or_404(db, sub_id)))
