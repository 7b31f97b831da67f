"""The worker-facing blueprint: the task page of a HIT, and the endpoint its answers go to.

``GET /hit/<hit key>`` takes MTurk's query parameters (``assignmentId``, ``hitId``,
``workerId``, ``turkSubmitTo``); without an accepted assignment (``ASSIGNMENT_ID_NOT_AVAILABLE``)
it shows the task read-only. ``POST /hit/<hit key>/submit`` validates the answers and stores
them in one transaction, exactly once per assignment; every refusal is a 4xx with messages a
worker can act on, and nothing partial is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, jsonify, request
from sqlmodel import Session, select

from harness.errors import StoreError
from harness.platform.after_submission import run_after_submission
from harness.render.answers import AnswerFormatError, decode_fields
from harness.render.pages import PREVIEW_ASSIGNMENT, render_page
from harness.render.validation import check_answers
from harness.store.database import session_scope
from harness.store.models import Assignment, AssignmentStatus, Judgment, Worker
from harness.store.submissions import record_accept, store_submission
from harness.web.messages import message_page
from harness.web.state import find_task_hit, web_state

bp = Blueprint("tasks", __name__)


@dataclass(frozen=True)
class Stored:
    """A submission just stored: its study's and its assignment's store ids."""

    study_id: int
    assignment_pk: int


RECORDED = "Your answers are recorded."
ALREADY_RECORDED = "Your answers were already recorded; nothing was changed."
NO_HIT = "There is no HIT {key} here. Check the link, or return the HIT on MTurk."


def _external_submit(submit_to: str) -> str:
    return f"{submit_to.rstrip('/')}/mturk/externalSubmit" if submit_to else ""


def _has_judgments(session: Session, assignment_id: int) -> bool:
    found = session.exec(
        select(Judgment.id).where(Judgment.assignment_id == assignment_id).limit(1)
    ).first()
    return found is not None


@bp.get("/hit/<key>")
def task_page(key: str) -> Response:
    args = request.args
    assignment_id = args.get("assignmentId", "").strip()
    worker_id = args.get("workerId", "").strip()
    hit_id = args.get("hitId", "").strip()
    submit_to = args.get("turkSubmitTo", "").strip()
    preview = assignment_id in ("", PREVIEW_ASSIGNMENT)
    with session_scope(web_state().engine) as session:
        task = find_task_hit(session, key)
        if task is None:
            return message_page("HIT not found", NO_HIT.format(key=key), 404)
        if hit_id and task.hit.platform_hit_id and hit_id != task.hit.platform_hit_id:
            return message_page(
                "Wrong HIT",
                f"This page belongs to another HIT than {hit_id}. Open the task from MTurk again.",
                400,
            )
        if not preview:
            if not worker_id:
                return message_page(
                    "Worker id missing",
                    "The link has an assignmentId but no workerId. Open the task from MTurk again.",
                    400,
                )
            try:
                assignment = record_accept(session, task.hit, assignment_id, worker_id)
            except StoreError:
                return message_page(
                    "Not your assignment",
                    f"Assignment {assignment_id} belongs to another worker or HIT. Open the "
                    "task from your own MTurk account.",
                    403,
                )
            session.commit()  # the accept is kept; no write lock held while the page renders
            assert assignment.id is not None
            if assignment.status != AssignmentStatus.ACCEPTED or _has_judgments(
                session, assignment.id
            ):
                complete = _external_submit(submit_to)
                return message_page(
                    "Already submitted",
                    ALREADY_RECORDED
                    + (" Press the button to complete the HIT." if complete else ""),
                    200,
                    complete_url=complete,
                    assignment_id=assignment_id,
                )
        html = render_page(
            task.instrument,
            task.plan,
            study_name=task.study.name,
            hosting="external",
            worker_id=None if preview else worker_id,
            assignment_id=assignment_id,
            hit_id=hit_id,
            submit_to=submit_to,
            preview=preview,
        )
    # never from a cache: the page carries this assignment's state (accepted, preview, done)
    return Response(html, 200, mimetype="text/html", headers={"Cache-Control": "no-store"})


def _refuse(status: int, *errors: str) -> tuple[Response, int]:
    return jsonify(ok=False, errors=list(errors)), status


@bp.post("/hit/<key>/submit")
def submit(key: str) -> tuple[Response, int]:
    form = request.form
    assignment_id = form.get("assignmentId", "").strip()
    worker_id = form.get("workerId", "").strip()
    if assignment_id in ("", PREVIEW_ASSIGNMENT):
        return _refuse(400, "This is a preview: accept the HIT on MTurk, then answer and submit.")
    if not worker_id:
        return _refuse(400, "The submission has no workerId. Open the task from MTurk again.")
    state = web_state()
    try:
        with session_scope(state.engine) as session:
            outcome = _store(session, key, assignment_id, worker_id, list(form.items(multi=True)))
    except sa.exc.IntegrityError:  # the same assignment stored by a concurrent request
        return jsonify(ok=True, created=False, message=ALREADY_RECORDED), 200
    if not isinstance(outcome, Stored):
        return outcome
    study_id, assignment_pk = outcome.study_id, outcome.assignment_pk
    if state.after_submission is not None:
        # the answers are stored; screening failing must not fail the worker: it is logged as
        # an event and the assignment is screened again later (sync, review, next submission)
        failure = run_after_submission(
            state.engine, state.after_submission, study_id, assignment_pk
        )
        if failure is not None:
            current_app.logger.error("after_submission failed for %s: %s", assignment_pk, failure)
    return jsonify(ok=True, created=True, message=RECORDED), 200


def _store(
    session: Session, key: str, assignment_id: str, worker_id: str, fields: list[tuple[str, str]]
) -> Stored | tuple[Response, int]:
    """The study's and the new assignment's store ids, or the refusal to send (nothing
    written)."""
    task = find_task_hit(session, key)
    if task is None:
        return _refuse(404, NO_HIT.format(key=key))
    assignment = session.exec(
        select(Assignment).where(Assignment.platform_assignment_id == assignment_id)
    ).first()
    if assignment is None or assignment.id is None:
        return _refuse(
            404,
            f"We have no record of assignment {assignment_id}. Open the HIT from MTurk again "
            "(your answers on this page are kept until you reload it).",
        )
    worker = session.get(Worker, assignment.worker_id)
    if (
        assignment.hit_id != task.hit.id
        or worker is None
        or (worker.platform_worker_id != worker_id)
    ):
        return _refuse(
            403,
            f"Assignment {assignment_id} belongs to another worker or HIT; your answers were "
            "not stored. Open the task from your own MTurk account.",
        )
    if _has_judgments(session, assignment.id):
        return jsonify(ok=True, created=False, message=ALREADY_RECORDED), 200
    try:
        answers = decode_fields(fields)
    except AnswerFormatError as exc:
        return _refuse(400, *exc.problems)
    problems = check_answers(
        task.instrument,
        task.plan,
        answers,
        worker_order=task.instrument.page_order(
            task.plan, study_name=task.study.name, worker_id=worker_id, hosting="external"
        ),
    )
    if problems:
        return _refuse(422, *problems)
    try:
        stored = store_submission(session, task.hit, assignment_id, worker_id, answers)
    except StoreError as exc:
        session.rollback()
        return _refuse(409, f"Your answers could not be stored: {exc}")
    if not stored.created:  # a concurrent request stored this assignment first
        return jsonify(ok=True, created=False, message=ALREADY_RECORDED), 200
    assert stored.assignment.id is not None and task.study.id is not None
    return Stored(task.study.id, stored.assignment.id)
