"""Prolific's hooks, received on the task server: ``POST /hooks/prolific``.

The launch subscribes this URL to ``submission.status.change`` when Prolific can reach it
(`harness.platform.places.subscribe_hooks`) and keeps the workspace's signing secret in the
store. A delivery is refused unless it carries a recent timestamp (400: missing, not a number,
or more than five minutes off: a replay) and a good signature with a kept secret (401). A
verified event names a submission; it is looked up on Prolific and stored by the code `harness
sync` uses (`harness.platform.places_sync.sync_submission`), so a repeated or late delivery
changes nothing, and live screening runs on what is stored. Polling (`harness sync`) stays the
fallback: a delivery lost or refused is found by the next sync.
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, current_app, jsonify, request
from sqlmodel import col, select

from harness.errors import HarnessError
from harness.platform.contract import EventTopic
from harness.platform.places import hook_secret_name
from harness.platform.places_sync import sync_submission
from harness.platform.reconcile import SyncHooks
from harness.platform.registry import provider_for
from harness.providers.prolific.hooks import SIGNATURE, TIMESTAMP, events, fresh, verified
from harness.store.database import session_scope
from harness.store.models import StoreSecret
from harness.web.state import web_state

bp = Blueprint("prolific_hooks", __name__)
PLATFORM = "prolific"


def _refuse(status: int, message: str) -> tuple[Response, int]:
    return jsonify(ok=False, error=message), status


def _secrets() -> list[str]:
    prefix = hook_secret_name(PLATFORM, "")
    with session_scope(web_state().engine) as session:
        rows = session.exec(select(StoreSecret).where(col(StoreSecret.name).startswith(prefix)))
        return [row.value for row in rows]


@bp.post("/hooks/prolific")
def receive() -> tuple[Response, int]:
    """Verify a delivery, then store what the submissions it names are now."""
    body = request.get_data(cache=False)
    stamp = request.headers.get(TIMESTAMP, "")
    given = request.headers.get(SIGNATURE, "")
    if not stamp or not given:
        return _refuse(400, f"a Prolific hook carries {TIMESTAMP} and {SIGNATURE}")
    if not fresh(stamp):
        return _refuse(
            400,
            f"{TIMESTAMP} {stamp[:40]!r} is not within five minutes of now "
            "(a replay, or a clock that is off)",
        )
    if not any(verified(secret, stamp, body, given) for secret in _secrets()):
        return _refuse(401, "the signature is not one of this task server's subscriptions")
    state = web_state()
    hooks = SyncHooks(after_submission=state.after_submission)
    stored = changed = 0
    for event in events(body.decode("utf-8", "replace")):
        if event.topic is not EventTopic.SUBMISSION or event.assignment_id is None:
            continue
        try:
            report = sync_submission(
                state.engine, event.assignment_id, hooks, partial(provider_for, shared=True)
            )
        except HarnessError as exc:  # Prolific unreachable, no token: the delivery is retried
            current_app.logger.warning("prolific hook for %s: %s", event.assignment_id, exc)
            return _refuse(503, "could not look the submission up on Prolific; try again")
        if report is not None:
            stored += report.stored
            changed += report.status_changes
    return jsonify(ok=True, stored=stored, status_changes=changed), 200
