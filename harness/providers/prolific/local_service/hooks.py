"""The local Prolific service's hooks API (Prolific's routes, under ``/api/v1/hooks/``).

``event-types/``; ``secrets/`` (list; create, which replaces the workspace's one secret);
``subscriptions/`` (list, ``?is_enabled=``; create: answered with the subscription and an
``X-Hook-Secret`` header); ``subscriptions/<id>/`` (get; POST confirms it with ``{"secret":
<X-Hook-Secret>}``; DELETE). Deliveries: `harness.providers.prolific.local_service.outbox`.

Chosen here because the documentation is silent: a subscription is listed with ``is_enabled``
false until confirmed (only confirmed ones are delivered to); creating one needs the
workspace's secret first (400 otherwise); only loopback targets (``127.0.0.1``, ``::1``,
``localhost``, http or https) are accepted, so the service never posts anywhere else; the body
is Prolific's documented one (``resource_id``, ``event_type``, ``participant_id``, ``status``),
sent with ``X-Event-ID``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from flask import Blueprint, Response, jsonify, request

from harness.providers.prolific.hooks import SUBMISSION_EVENT, loopback
from harness.providers.prolific.local_service import api, inputs
from harness.providers.prolific.local_service.app import ApiError, service
from harness.providers.prolific.local_service.outbox import workspace_secret
from harness.providers.prolific.local_service.state import WORKSPACE, new_id

bp = Blueprint("prolific_hooks", __name__, url_prefix="/api/v1/hooks")
bp.before_request(api._guard)

EVENT_TYPES = [
    {"event_type": "study.status.change", "description": "A study's status changed."},
    {"event_type": SUBMISSION_EVENT, "description": "A submission's status changed."},
]


# -- secrets --------------------------------------------------------------------------------------
def _workspace(given: Any) -> str:
    if given != WORKSPACE:
        raise ApiError(400, {"workspace_id": [f"Workspace {given!r} not found."]})
    return WORKSPACE


@bp.get("/event-types/")
def event_types() -> Response:
    return api.paginate(EVENT_TYPES)


@bp.get("/secrets/")
def list_secrets() -> Response:
    store = service().store
    workspace = _workspace(request.args.get("workspace_id", WORKSPACE))
    with store.tx() as db:
        found = workspace_secret(db, workspace)
    return api.paginate([] if found is None else [found])


@bp.post("/secrets/")
def create_secret() -> tuple[Response, int]:
    """Create the workspace's secret, replacing the one it had (Prolific: one per workspace)."""
    workspace = _workspace(inputs.json_object().get("workspace_id"))
    made = {"id": new_id(), "value": new_id() + new_id(), "workspace_id": workspace}
    store = service().store
    with store.tx() as db:
        store.set_meta(db, f"hook_secret:{workspace}", json.dumps(made))
    return jsonify(made), 201


# -- subscriptions --------------------------------------------------------------------------------
def _detail(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "event_type": row["event_type"],
        "target_url": row["target_url"],
        "workspace_id": row["workspace_id"],
        "is_enabled": bool(row["enabled"] and row["confirmed"]),
    }


@bp.get("/subscriptions/")
def list_subscriptions() -> Response:
    workspace = _workspace(request.args.get("workspace_id", WORKSPACE))
    with service().store.tx() as db:
        rows = db.execute(
            "SELECT * FROM hook_subscription WHERE workspace_id = ? ORDER BY seq", (workspace,)
        ).fetchall()
    found = [_detail(r) for r in rows]
    wanted = request.args.get("is_enabled")
    if wanted in ("true", "false"):
        found = [s for s in found if s["is_enabled"] is (wanted == "true")]
    return api.paginate(found)


@bp.post("/subscriptions/")
def create_subscription() -> tuple[Response, int]:
    data = inputs.json_object()
    workspace = _workspace(data.get("workspace_id"))
    event_type, target = data.get("event_type"), data.get("target_url")
    if event_type not in {e["event_type"] for e in EVENT_TYPES}:
        raise ApiError(400, {"event_type": ["Not a subscribable event type."]})
    if not isinstance(target, str) or not inputs.is_text(target, 500) or not loopback(target):
        raise ApiError(
            400,
            {
                "target_url": [
                    "The local service posts to loopback addresses only "
                    "(http(s)://127.0.0.1, ::1 or localhost)."
                ]
            },
        )
    enabled = data.get("is_enabled", True)
    if not isinstance(enabled, bool):
        raise ApiError(400, {"is_enabled": ["Must be true or false."]})
    store = service().store
    with store.tx() as db:
        if workspace_secret(db, workspace) is None:
            raise ApiError(
                400,
                "Create a secret for the workspace (POST /api/v1/hooks/secrets/) "
                "before subscribing.",
            )
        hook_id, confirm = new_id(), new_id()
        db.execute(
            "INSERT INTO hook_subscription VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
            (hook_id, event_type, target, workspace, int(enabled), confirm, store.seq(db)),
        )
        out = _detail(api.row_or_404(db, "hook_subscription", hook_id, "Subscription"))
    answer = jsonify(results=[out])
    answer.headers["X-Hook-Secret"] = confirm
    return answer, 201


@bp.get("/subscriptions/<hook_id>/")
def get_subscription(hook_id: str) -> Response:
    with service().store.tx() as db:
        return jsonify(_detail(api.row_or_404(db, "hook_subscription", hook_id, "Subscription")))


@bp.post("/subscriptions/<hook_id>/")
def confirm_subscription(hook_id: str) -> Response:
    given = inputs.json_object().get("secret")
    with service().store.tx() as db:
        row = api.row_or_404(db, "hook_subscription", hook_id, "Subscription")
        if not isinstance(given, str) or given != row["confirm_secret"]:
            raise ApiError(400, {"secret": ["Not the X-Hook-Secret of this subscription."]})
        db.execute("UPDATE hook_subscription SET confirmed = 1 WHERE id = ?", (hook_id,))
        return jsonify(_detail(api.row_or_404(db, "hook_subscription", hook_id, "Subscription")))


@bp.delete("/subscriptions/<hook_id>/")
def delete_subscription(hook_id: str) -> tuple[Response, int]:
    with service().store.tx() as db:
        api.row_or_404(db, "hook_subscription", hook_id, "Subscription")
        db.execute("DELETE FROM hook_delivery WHERE subscription_id = ?", (hook_id,))
        db.execute("DELETE FROM hook_subscription WHERE id = ?", (hook_id,))
    return Response(status=204), 204
