"""A participant withdrawing from a study, from its task page (confirmed there first).

``POST /p/<study>/s/<session>/withdraw`` (a study link, Prolific) and ``POST /hit/<hit
key>/withdraw`` (MTurk's external pages) take the same proof as a submission: the page's token
for this assignment and worker, from the same site (and, with places, the browser that started
the session). The withdrawal is recorded once (`harness.store.withdrawals`), so the
participant's judgments leave analysis and export; a place they held is freed for someone
else. The platform is told where it can be: Prolific is asked for the return of the
submission (a participant's return is never held against them); a study link has nobody to
tell; MTurk lets only the worker return an assignment, so the page asks them to.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from harness.i18n import N_, _, use_language
from harness.platform.actions import ReturnAsker
from harness.store.allocation import release
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event
from harness.store.models import AssignmentStatus, SlotState, Worker
from harness.store.withdrawals import has_withdrawn, withdraw
from harness.web import participants, tasks
from harness.web.browsers import holds
from harness.web.messages import refusal
from harness.web.security import bad_id, cross_site
from harness.web.state import web_state
from harness.web.tokens import FIELD
from harness.web.trust import trust

bp = Blueprint("withdrawals", __name__)

WITHDRAWN = N_("You have withdrawn from the study. Nothing you answered will be used.")
ON_MTURK = N_("Please return the HIT on MTurk (its Return button) so that it goes to someone else.")
ON_RETURNING = N_(
    "Please return the study on {platform} (its Return button); returning is not held against you."
)
RETURN_REASON = (
    "You withdrew from this study; please return your submission. Returning is not held "
    "against you, and nothing you answered will be used."
)
NOT_YOURS = N_("This page's token does not match this task and participant; nothing was changed.")
OTHER_BROWSER = N_("This task was started in another browser; nothing was changed.")
NOT_HERE = N_("This task link is not valid here; nothing was changed.")
NO_WORKER = N_("The page has no workerId; nothing was changed.")


@bp.post("/p/<name>/s/<ref>/withdraw")
def from_place(name: str, ref: str) -> tuple[Response, int]:
    """Withdraw the participant holding session ``ref`` of study ``name``."""
    given = request.form.get("workerId", "")
    if cross_site(request):
        return refusal(403, _(tasks.CROSS_SITE))
    token = request.form.get(FIELD, "")
    if not trust().keys.valid(
        token, participants.SCOPE, unit=name, assignment_id=ref, worker_id=given
    ):
        return refusal(403, _(NOT_YOURS))
    if not holds(request, name, ref, given):
        return refusal(403, _(OTHER_BROWSER))
    state = web_state()
    with session_scope(state.engine) as session:
        entry = participants.entry_of(session, name)
        if isinstance(entry, Response):
            return refusal(404, _("There is no study {name} here.").format(name=name))
        if has_withdrawn(session, entry.study.id, given):  # again (the place freed already)
            return jsonify(ok=True, message=_(WITHDRAWN)), 200
        slot = participants.slot_of(session, entry, ref)
        worker = None if slot is None else session.get(Worker, slot.worker_id)
        if slot is None or worker is None or worker.platform_worker_id != given:
            return refusal(404, _(NOT_HERE))
        if slot.state is SlotState.RESERVED:  # the place goes to someone else (lock first)
            release(session, ref, AssignmentStatus.RETURNED, "withdrew")
        withdraw(session, entry.study.id, given, ref)
        study_id, platform = entry.study.id, entry.platform
        where, target = entry.where, entry.study.target
    message = _(WITHDRAWN)
    if platform.capabilities.asks_returns:
        from harness.platform.registry import connect

        provider = connect(where.provider, target, where.endpoint_url, shared=True)
        if isinstance(provider, ReturnAsker):
            _ask_return(provider, study_id, ref)
        message += " " + _(ON_RETURNING).format(platform=platform.label)
    return jsonify(ok=True, message=message), 200


def _ask_return(provider: ReturnAsker, study_id: int, ref: str) -> None:
    """Ask the platform for the return of session ``ref``, recording what it answered; a
    failure is logged, never the participant's problem."""
    try:
        provider.request_return(ref, RETURN_REASON)
        outcome = "asked"
    except Exception as exc:  # noqa: BLE001  (any platform failure: recorded, not raised)
        current_app.logger.warning("asking the return of withdrawn %s failed: %s", ref, exc)
        outcome = f"failed: {exc}"
    with session_scope(web_state().engine) as session:
        record_event(
            session,
            EventKind.WITHDRAWAL_RETURN,
            study_id=study_id,
            subject=ref,
            payload={"return": outcome},
        )


@bp.post("/hit/<key>/withdraw")
def from_hit(key: str) -> tuple[Response, int]:
    """Withdraw the worker of an MTurk assignment opened from HIT ``key``'s external page."""
    form = request.form
    assignment_id = form.get("assignmentId", "").strip()
    worker_id = form.get("workerId", "").strip()
    if cross_site(request):
        return refusal(403, _(tasks.CROSS_SITE))
    malformed = bad_id(assignmentId=assignment_id, workerId=worker_id)
    if malformed is not None or not worker_id:
        return refusal(400, malformed or _(NO_WORKER))
    if not trust().keys.valid(
        form.get(FIELD, ""),
        tasks.SCOPE,
        unit=key,
        assignment_id=assignment_id,
        worker_id=worker_id,
    ):
        return refusal(403, _(NOT_YOURS))
    with session_scope(web_state().engine) as session:
        task = web_state().task_hit(session, key)
        if task is None:
            return refusal(404, _(tasks.NO_HIT).format(key=key))
        use_language(task.instrument.spec.language)
        withdraw(session, task.study.id, worker_id, assignment_id)
    return jsonify(ok=True, message=_(WITHDRAWN) + " " + _(ON_MTURK)), 200
