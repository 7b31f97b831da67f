"""The researcher's preview: one HIT of a spec served as a worker would see it, against a
throw-away SQLite store, with what each submission stored printed to the console.

Wires spec -> render -> store -> web for `harness preview`; nothing here is used in a study.
The page is served by werkzeug's development server (one researcher, loopback), never a study.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import sqlalchemy as sa
from flask import Flask, Response, redirect, request
from flask.typing import ResponseReturnValue
from sqlmodel import Session, col, select

from harness.errors import InputError
from harness.hosting import Hosting
from harness.platform.submissions.after_submission import AfterSubmission, StudyRef
from harness.platform.verification import Vouches
from harness.render.answers import AnswerFormatError, decode_fields
from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import HitPlan, hit_key, plan_hits
from harness.render.validation import check_answers
from harness.spec import LoadedSpec
from harness.store import create_study, make_engine, session_scope
from harness.store.hits import add_planned_hits
from harness.store.migrations import upgrade
from harness.store.models import Item, Judgment
from harness.web.app import create_app
from harness.web.messages import message_page
from harness.web.security import new_nonce, secure_headers

PREVIEW_WORKER = "PREVIEW-WORKER"


def chosen_plan(loaded: LoadedSpec, index: int) -> HitPlan:
    plans = plan_hits(loaded)
    if not 0 <= index < len(plans):
        raise InputError(
            f"{loaded.path}: --hit {index} does not exist; the spec plans HITs 0 to "
            f"{len(plans) - 1}"
        )
    return plans[index]


def page_file(loaded: LoadedSpec, index: int) -> str:
    """The HTML of one HIT for a file: ``mturk`` hosting gives the HTMLQuestion document itself
    (open it with ``?assignmentId=A&workerId=W`` to answer), ``external`` the page in the
    preview worker's order."""
    plan = chosen_plan(loaded, index)
    instrument = Instrument.from_loaded(loaded)
    name = loaded.spec.study.name
    if loaded.spec.hosting is Hosting.MTURK:
        return render_page(instrument, plan, study_name=name, hosting=Hosting.MTURK)
    return render_page(
        instrument,
        plan,
        study_name=name,
        hosting=Hosting.EXTERNAL,
        worker_id=PREVIEW_WORKER,
        assignment_id="PREVIEW-ASSIGNMENT",
    )


def preview_app(
    loaded: LoadedSpec, index: int, workdir: Path, echo: Callable[[str], None] = print
) -> Flask:
    """A task server for HIT ``index`` of ``loaded`` on a new SQLite store in ``workdir``.

    ``/`` opens the HIT for a fresh assignment (so every visit can be submitted);
    ``/preview`` shows it as before accepting. A spec with ``mturk`` hosting is served as its
    self-contained page, whose answers go to this app's ``/mturk/externalSubmit``.
    """
    plan = chosen_plan(loaded, index)
    url = f"sqlite:///{workdir / 'preview.db'}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        add_planned_hits(session, study, [plan.showings], loaded.spec.raters_per_item)
        study_name = study.name
    engine.dispose()
    instrument = Instrument.from_loaded(loaded)
    app = create_app(
        url,
        after_submission=_echo_stored(echo),
        template_dirs=instrument.template_dirs,
        verifier=Vouches(),  # the researcher's own preview: no platform to ask
    )
    key = hit_key(study_name, plan.index)
    mturk = loaded.spec.hosting is Hosting.MTURK
    workers: dict[str, str] = {}  # assignment -> worker: MTurk's form posts only the assignment

    @app.get("/")
    def start() -> ResponseReturnValue:
        worker = request.args.get("workerId", PREVIEW_WORKER)
        params = {
            "assignmentId": f"PREVIEW-{uuid.uuid4().hex[:8].upper()}",
            "hitId": "PREVIEW-HIT",
            "workerId": worker,
        }
        if mturk:  # this app stands in for MTurk's worker site
            params["turkSubmitTo"] = request.host_url.rstrip("/")
            workers[params["assignmentId"]] = worker
        target = "/mturk-page" if mturk else f"/hit/{key}"
        return redirect(f"{target}?{urlencode(params)}")

    @app.get("/preview")
    def before_accepting() -> ResponseReturnValue:
        query = urlencode({"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "PREVIEW-HIT"})
        return redirect(f"{'/mturk-page' if mturk else f'/hit/{key}'}?{query}")

    @app.get("/mturk-page")
    def mturk_page() -> Response:
        nonce = new_nonce()
        html = render_page(
            instrument,
            plan,
            study_name=study_name,
            hosting=Hosting.MTURK,
            csp_nonce=nonce,
            submit_origins=(request.host_url.rstrip("/").lower(),),
        )
        return secure_headers(Response(html, mimetype="text/html"), nonce=nonce)

    @app.post("/mturk/externalSubmit")
    def external_submit() -> Response:
        """What MTurk would store, checked as sync checks it (in the order the page showed)."""
        worker = workers.get(request.form.get("assignmentId", ""), PREVIEW_WORKER)
        try:
            answers = decode_fields(list(request.form.items(multi=True)))
        except AnswerFormatError as exc:
            problems = exc.problems
        else:
            order = instrument.page_order(plan, study_name=study_name, worker_id=worker)
            problems = check_answers(instrument, plan, answers, worker_order=order)
            for a in answers:
                echo(_line(a.position, a.item_key, a.value, a.skipped, a.seconds))
        for problem in problems:
            echo(f"  problem: {problem}")
        text = "The answers are valid." if not problems else "; ".join(problems)
        return message_page("Posted to MTurk (preview)", text, 200 if not problems else 422)

    return app


def _line(
    position: int, key: str, value: float | None, skipped: bool, seconds: float | None
) -> str:
    shown = "skipped" if skipped else ("-" if value is None else f"{value:g}")
    took = "" if seconds is None else f" {seconds:.1f}s"
    return f"  {position + 1:>3}. {key}: {shown}{took}"


def _echo_stored(echo: Callable[[str], None]) -> AfterSubmission:
    def after(engine: sa.Engine, _study: StudyRef, assignment_id: int | None) -> None:
        if assignment_id is None:
            return
        with session_scope(engine) as session:
            _echo_rows(session, assignment_id, echo)

    return after


def _echo_rows(session: Session, assignment_id: int, echo: Callable[[str], None]) -> None:
    rows = session.exec(
        select(Judgment, Item)
        .join(Item, col(Item.id) == col(Judgment.item_id))
        .where(Judgment.assignment_id == assignment_id)
        .order_by(col(Judgment.position))
    ).all()
    echo(f"stored {len(rows)} judgments:")
    for judgment, item in rows:
        echo(_line(judgment.position, item.key, judgment.value, judgment.skipped, judgment.seconds))
