"""The worker-facing blueprint: the task page of a HIT, and the endpoint its answers go to.

``GET /hit/<hit key>`` takes MTurk's query parameters (``assignmentId``, ``hitId``,
``workerId``, ``turkSubmitTo``); without an accepted assignment (``ASSIGNMENT_ID_NOT_AVAILABLE``)
it shows the task read-only. Opening a page writes nothing; ``turkSubmitTo`` must be the
platform's own site (`harness.web.security`), and the page carries a token signing its HIT,
assignment and worker (`harness.web.tokens`). ``POST /hit/<hit key>/submit`` refuses a
cross-site post or a missing or wrong token, validates the answers, and quarantines them
(`harness.store.quarantine`) until the platform vouches for the assignment: the page completes
the assignment on MTurk (externalSubmit) only after this post is answered, so MTurk cannot
know it as submitted yet, and the post does not ask (`Verifier.at_submission`). The rechecks
(`harness.platform.submissions.rechecks`) ask, a HIT's due claims at once: confirmed, the
answers are stored as the assignment's judgments, exactly once (the database's unique
constraints); someone else's, refused and never counted. A post for an assignment this store
already holds answers for is answered from the store (recorded already; another worker's:
403). Every refusal is a 4xx with messages a worker can act on, and nothing partial is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, jsonify, request
from sqlmodel import Session

from harness.clock import utcnow
from harness.errors import StoreError
from harness.hosting import Hosting
from harness.i18n import N_, _, use_language
from harness.platform.submissions.after_submission import run_after_submission
from harness.platform.verification import Verdict
from harness.render.answers import CONSENT_FIELDS, NOT_ANSWERS
from harness.render.consent import consent_of
from harness.render.pages import PREVIEW_ASSIGNMENT, render_page
from harness.render.validation import AnswersRefused, read_posted
from harness.store.arm_assignment import HitArrival, arrive_at_hit, out_of_arm
from harness.store.database import session_scope
from harness.store.models import Hit, StudyPlatform, aware
from harness.store.quarantine import Owner, quarantine, submitted_by
from harness.store.rechecks import first_recheck
from harness.store.submissions import judged_before, store_submission
from harness.web.arm_pages import (
    OTHER_ARM_TITLE,
    judged_before_page,
    other_arm_page,
    tell_platform,
)
from harness.web.messages import message_page, refusal
from harness.web.security import (
    UnknownHost,
    bad_id,
    checked_submit_to,
    cross_site,
    new_nonce,
    secure_headers,
)
from harness.web.state import TaskHit, web_state
from harness.web.tokens import FIELD
from harness.web.trust import trust

bp = Blueprint("tasks", __name__)


@dataclass(frozen=True)
class Stored:
    """A submission just stored: its study's and its assignment's store ids."""

    study_id: int
    assignment_pk: int


RECORDED = N_("Your answers are recorded.")
ALREADY_RECORDED = N_("Your answers were already recorded; nothing was changed.")
NO_HIT = N_("There is no HIT {key} here. Check the link, or return the HIT on MTurk.")
OPEN_OWN = N_("Open the task from your own MTurk account.")
NOT_YOURS = N_(
    "Assignment {assignment} belongs to another worker or HIT. "
    "Open the task from your own MTurk account."
)
NOT_FROM_PLATFORM = N_(
    "This link sends your work somewhere other than MTurk (its turkSubmitTo is not MTurk's "
    "address), so it was not opened. Open the task from MTurk again."
)
CROSS_SITE = N_("This submission came from another website and was refused; nothing was stored.")
BAD_TOKEN = N_(
    "This page's token is missing or does not match its assignment and worker, so your "
    "answers were not stored. Reload the HIT page from MTurk and submit again."
)
SCOPE = "hit"


def _external_submit(submit_to: str) -> str:
    return f"{submit_to.rstrip('/')}/mturk/externalSubmit" if submit_to else ""


@bp.get("/hit/<key>")
def task_page(key: str) -> Response:
    args = request.args
    assignment_id = args.get("assignmentId", "").strip()
    worker_id = args.get("workerId", "").strip()
    hit_id = args.get("hitId", "").strip()
    preview = assignment_id in ("", PREVIEW_ASSIGNMENT)
    malformed = bad_id(assignmentId=assignment_id, workerId=worker_id, hitId=hit_id)
    if malformed is not None:
        return message_page(_("Bad link"), malformed, 400)
    arrival: HitArrival | None = None
    with session_scope(web_state().engine) as session:
        task = web_state().task_hit(session, key)
        if task is None:
            return message_page(_("HIT not found"), _(NO_HIT).format(key=key), 404)
        use_language(task.instrument.spec.language)
        origins = web_state().worker_origins(session, task.study)

        def secured(response: Response) -> Response:  # the platform may frame the answer
            return secure_headers(response, frame_origins=origins)

        if hit_id and task.hit.platform_hit_id and hit_id != task.hit.platform_hit_id:
            text = _(
                "This page belongs to another HIT than {hit}. Open the task from MTurk again."
            ).format(hit=hit_id)
            return secured(message_page(_("Wrong HIT"), text, 400))
        try:
            submit_to = checked_submit_to(args.get("turkSubmitTo", "").strip(), origins)
        except UnknownHost:
            return secured(message_page(_("Not opened from MTurk"), _(NOT_FROM_PLATFORM), 400))
        if not preview:
            if not worker_id:
                text = _(
                    "The link has an assignmentId but no workerId. Open the task from MTurk again."
                )
                return secured(message_page(_("Worker id missing"), text, 400))
            done = submitted_by(session, assignment_id, worker_id)
            if done is Owner.OTHER:
                text = _(NOT_YOURS).format(assignment=assignment_id)
                return secured(message_page(_("Not your assignment"), text, 403))
            if done is Owner.SAME:
                complete = _external_submit(submit_to)
                text = _(ALREADY_RECORDED) + (
                    " " + _("Press the button to complete the HIT.") if complete else ""
                )
                return secured(
                    message_page(
                        _("Already submitted"),
                        text,
                        200,
                        complete_url=complete,
                        assignment_id=assignment_id,
                    )
                )
        # signed before anything is written: the store's key may be made in a session of its own
        token = (
            ""
            if preview
            else trust().keys.sign(
                SCOPE, unit=key, assignment_id=assignment_id, worker_id=worker_id
            )
        )
        if not preview and task.arm_id is not None:
            # a study with arms: the worker's arm, given on their first arrival (docs/arms.md)
            arrival = arrive_at_hit(session, task.study.id, task.hit.id, worker_id)
        where = None if arrival is None else session.get(StudyPlatform, task.study.id)
        if arrival is not None and not arrival.in_arm:
            response = secured(other_arm_page(session, task.study, arrival))
        elif not preview and _judged_before(session, task, worker_id):
            response = secured(judged_before_page())
        else:
            nonce = new_nonce()
            html = render_page(
                task.instrument,
                task.plan,
                study_name=task.study.name,
                hosting=Hosting.EXTERNAL,
                worker_id=None if preview else worker_id,
                assignment_id=assignment_id,
                hit_id=hit_id,
                submit_to=submit_to,
                preview=preview,
                page_token=token,
                csp_nonce=nonce,
            )
            # never from a cache: the page carries this assignment's state (accepted, preview)
            response = secure_headers(
                Response(html, 200, mimetype="text/html", headers={"Cache-Control": "no-store"}),
                nonce=nonce,
                frame_origins=origins,
            )
    if arrival is not None:  # the arm is recorded (committed): tell the platform
        tell_platform(where, task.study, arrival, worker_id)
    return response


def _judged_before(session: Session, task: TaskHit, worker_id: str) -> bool:
    """Whether an adaptive study's HIT holds an item the worker rated in another of its HITs
    (composed at sync from the items still short, a later HIT may: the page asks them to
    return it; what is stored anyway is a ``repeat``, `harness.showings`)."""
    if task.instrument.spec.adaptive is None:
        return False
    return bool(judged_before(session, [task.study.id], [worker_id], task.plan.items))


@bp.post("/hit/<key>/submit")
def submit(key: str) -> tuple[Response, int]:
    form = request.form
    assignment_id = form.get("assignmentId", "").strip()
    worker_id = form.get("workerId", "").strip()
    if cross_site(request):
        return refusal(403, _(CROSS_SITE))
    if assignment_id in ("", PREVIEW_ASSIGNMENT):
        return refusal(
            400, _("This is a preview: accept the HIT on MTurk, then answer and submit.")
        )
    if not worker_id:
        return refusal(400, _("The submission has no workerId. Open the task from MTurk again."))
    malformed = bad_id(assignmentId=assignment_id, workerId=worker_id)
    if malformed is not None:
        return refusal(400, malformed)
    keys = trust().keys
    token = form.get(FIELD, "")
    if not keys.valid(token, SCOPE, unit=key, assignment_id=assignment_id, worker_id=worker_id):
        return refusal(403, _(BAD_TOKEN))
    state = web_state()
    try:
        with session_scope(state.engine) as session:
            outcome = _store(session, key, assignment_id, worker_id, list(form.items(multi=True)))
    except sa.exc.IntegrityError:  # the same assignment stored by a concurrent request
        return jsonify(ok=True, created=False, message=_(ALREADY_RECORDED)), 200
    if isinstance(outcome, Quarantined):
        if outcome.recheck:
            trust().rechecks.schedule(outcome.row_id)
        return jsonify(ok=True, created=outcome.created, verified=False, message=_(RECORDED)), 200
    if not isinstance(outcome, Stored):
        return outcome
    after_stored(outcome.study_id, outcome.assignment_pk, str(outcome.assignment_pk))
    return jsonify(ok=True, created=True, verified=True, message=_(RECORDED)), 200


def after_stored(study_id: int, assignment_pk: int, named: str) -> None:
    """Run the app's after-submission work (live screening) on an assignment just stored.
    The answers are stored; screening failing must not fail the worker: it is logged as an
    event (and here, ``named`` as the request knows it) and the assignment is screened again
    later (sync, review, next submission)."""
    state = web_state()
    if state.after_submission is None:
        return
    failure = run_after_submission(state.engine, state.after_submission, study_id, assignment_pk)
    if failure is not None:
        current_app.logger.error("after_submission failed for %s: %s", named, failure)


def _kept(field: str, consent: str | None) -> bool:
    """Whether a posted field is kept in quarantine: the answers, and the consent when the
    study asks one."""
    return field not in NOT_ANSWERS and (consent is not None or field not in CONSENT_FIELDS)


@dataclass(frozen=True)
class Quarantined:
    """A submission kept apart until the platform vouches for it (`harness.store.quarantine`):
    its row, whether it is new, and whether asking the platform again may settle it."""

    row_id: int
    created: bool
    recheck: bool


def _store(
    session: Session, key: str, assignment_id: str, worker_id: str, fields: list[tuple[str, str]]
) -> Stored | Quarantined | tuple[Response, int]:
    """The study's and the new assignment's store ids, the quarantined submission, or the
    refusal to send (nothing written)."""
    task = web_state().task_hit(session, key)
    if task is None:
        return refusal(404, _(NO_HIT).format(key=key))
    use_language(task.instrument.spec.language)
    posted_hit = dict(fields).get("hitId", "").strip()
    if posted_hit and task.hit.platform_hit_id and posted_hit != task.hit.platform_hit_id:
        return refusal(
            400,
            _(
                "These answers name HIT {hit}, but this page belongs to another HIT; they "
                "were not stored. Open the task from MTurk again."
            ).format(hit=posted_hit),
        )
    done = submitted_by(session, assignment_id, worker_id)
    if done is Owner.OTHER:
        return refusal(403, _(NOT_YOURS).format(assignment=assignment_id))
    if done is Owner.SAME:
        return jsonify(ok=True, created=False, message=_(ALREADY_RECORDED)), 200
    if task.arm_id is not None and out_of_arm(session, task.study.id, task.hit.id, worker_id):
        return refusal(
            403,
            _(
                "{title}: this HIT belongs to another group of the "
                "study's HITs than yours; your answers were not stored."
            ).format(title=_(OTHER_ARM_TITLE)),
        )
    read = read_posted(
        fields,
        task.instrument,
        task.plan,
        worker_order=task.instrument.page_order(
            task.plan, study_name=task.study.name, worker_id=worker_id, hosting=Hosting.EXTERNAL
        ),
        opened=aware(task.hit.created_at),
        now=utcnow(),
    )
    if isinstance(read, AnswersRefused):
        return refusal(read.status, *read.problems)
    answers = read
    checked = trust().verifier.at_submission(
        session, task.study, task.hit, assignment_id, worker_id
    )
    if checked.verdict is Verdict.REFUSED:
        return refusal(
            403,
            _("{reason}; your answers were not stored.").format(reason=checked.reason)
            + " "
            + _(OPEN_OWN),
        )
    if checked.verdict is Verdict.UNVERIFIED:
        row_id, created = quarantine(
            session,
            study_id=task.study.id,
            hit_id=task.hit.id,
            assignment_id=assignment_id,
            worker_id=worker_id,
            fields=[(k, v) for k, v in fields if _kept(k, task.instrument.spec.consent)],
            reason=checked.reason,
            recheck_at=None if checked.final else first_recheck(),
        )
        return Quarantined(row_id, created, recheck=created and not checked.final)
    hit = session.get(Hit, task.hit.id)
    assert hit is not None
    try:
        stored = store_submission(
            session,
            hit,
            assignment_id,
            worker_id,
            answers,
            consent=consent_of(fields, asked=task.instrument.spec.consent is not None),
        )
    except StoreError as exc:
        session.rollback()
        return refusal(409, _("Your answers could not be stored: {reason}").format(reason=exc))
    if not stored.created:  # a concurrent request stored this assignment first
        return jsonify(ok=True, created=False, message=_(ALREADY_RECORDED)), 200
    assert stored.assignment.id is not None
    return Stored(task.study.id, stored.assignment.id)
