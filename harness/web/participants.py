"""The participant blueprint: a study's entry page on platforms with places (Prolific, a link).

``GET /p/<study>`` is where participants arrive, with the platform's parameters (Prolific's
``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``; a study link's ``participant``, or none: an
anonymous id is made). The allocator (`harness.store.allocation`) gives them a slot, or says why
not (blocked by screening, nothing left, already done), and they are sent to their task page,
``/p/<study>/s/<session>``: the same page as every other platform's, whose answers go to
``.../submit``. The session is the browser's it started in (`harness.web.browsers`): the page,
its submission and a second arrival for the same place want that browser's cookie. Storing
the answers settles the slot (a conditional update: a participant whose reservation expired
and went to someone else is refused, nothing is stored) and the
submission (`harness.store.submissions.store_submission`) in one transaction; live screening
then runs as for any submission. The answer names where to go next: the platform's completion
URL with the study's code (Prolific), or harness's own completion page (a link). While a
study link is paused (`harness.platform.pause`), a new arrival gets a page saying so (503);
participants holding a slot go on and submit. On Prolific, Prolific itself stops new arrivals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import sqlalchemy as sa
from flask import Blueprint, Response, jsonify, redirect, request, url_for
from jinja2 import Environment, StrictUndefined
from sqlmodel import Session, select

from harness.clock import utcnow
from harness.errors import InputError, StoreError
from harness.hosting import Hosting
from harness.i18n import N_, _, current_language, direction
from harness.platform.contract import AnonymousEntry, PlacesPlatform, WorkerSites, pausing
from harness.platform.places import completion_code, published_ref
from harness.platform.verification import Verdict
from harness.render.consent import consent_of
from harness.render.pages import render_page
from harness.render.plan import HitPlan
from harness.render.validation import AnswersRefused, read_posted
from harness.store.allocation import (
    Allocation,
    Refusal,
    Refused,
    holds_slot,
    paused_for_newcomers,
    settle,
)
from harness.store.arm_assignment import allocate_in_arm
from harness.store.database import session_scope
from harness.store.models import Hit, Slot, SlotState, StudyStatus, Worker, aware
from harness.store.posted import KeptStudy, KeptWhere, hit_facts
from harness.store.studies import study_status
from harness.store.submissions import store_submission
from harness.store.withdrawals import has_withdrawn
from harness.web import browsers
from harness.web.browsers import bind, holds, other_browser, other_browser_page
from harness.web.language import speak_studys_language
from harness.web.messages import message_page, refusal
from harness.web.security import (
    bad_id,
    checked_redirect,
    cross_site,
    new_nonce,
    secure_headers,
)
from harness.web.state import web_state
from harness.web.tasks import ALREADY_RECORDED, RECORDED, after_stored
from harness.web.tokens import FIELD
from harness.web.trust import trust

bp = Blueprint("participants", __name__, url_prefix="/p")

SCOPE = "slot"
"""The page token's scope: a slot's task page (`harness.web.tokens`)."""
LOST = N_(
    "Your time for this task ran out and your place went to another participant, so these "
    "answers could not be stored. We are sorry; please return the study."
)

WITHDREW = N_("You withdrew from this study, so it cannot be taken again. Thank you.")

_ENV = Environment(autoescape=True, undefined=StrictUndefined)
_DONE = _ENV.from_string(
    """<!doctype html>
<html lang="{{ language }}" dir="{{ direction }}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ text.thanks }}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1b1f24}code{font-size:1.6rem;font-weight:700;letter-spacing:.1em}</style>
</head><body><h1>{{ text.thanks }}</h1><p>{{ text.recorded }}</p>
<p>{{ text.code }} <code id="completion-code">{{ code }}</code></p>
{% if more %}<p><a id="more" href="{{ more }}">{{ text.more }}</a>
{{ text.different }}</p>{% endif %}</body></html>"""
)


@dataclass(frozen=True)
class Entry:
    """A study with places, found from its name in the URL."""

    study: KeptStudy
    where: KeptWhere
    platform: PlacesPlatform


def entry_of(session: Session, name: str) -> Entry | Response:
    """The study named in the URL and where it runs, as kept by the process (`WebState`): its
    status is not among what is kept (read it from the database)."""
    from harness.platform.registry import platform_named

    state = web_state()
    study = state.study(session, name)
    where = state.where(session, study) if study is not None else None
    if study is None or where is None:
        return message_page(
            _("Study not found"), _("There is no study {name} here.").format(name=name), 404
        )
    speak_studys_language(session, study)
    platform = platform_named(where.provider)
    if not isinstance(platform, PlacesPlatform):
        return message_page(
            _("Study not found"), _("Study {name} is not run by link.").format(name=name), 404
        )
    return Entry(study, where, platform)


@bp.get("/<name>")
def arrive(name: str) -> Response:
    """Allocate the arriving participant a slot and send them to its task page."""
    with session_scope(web_state().engine) as session:
        entry = entry_of(session, name)
        if isinstance(entry, Response):
            return entry
        status = study_status(session, entry.study.id)
        if status is StudyStatus.EXPIRED:
            return _closed_page()
        finished = status is StudyStatus.FINISHED  # adaptive: all done, work under way goes on
        paused = status is StudyStatus.PAUSED and pausing(entry.platform).at_entry
        try:
            arrival = entry.platform.arrival(request.args)
        except InputError as exc:
            query = (
                entry.platform.anonymous_query(request.args)  # a link: no id needed
                if isinstance(entry.platform, AnonymousEntry)
                else None
            )
            if query is None:
                return message_page(
                    _("Cannot start"),
                    _("{reason}. Open the study's link again.").format(reason=exc),
                    400,
                )
            if finished:  # a new anonymous participant: nobody new starts
                return _closed_page()
            if paused:
                return _paused_page()
            return redirect(f"{request.base_url}?{urlencode(query)}", 303)  # type: ignore[return-value]
        malformed = bad_id(
            participant=arrival.worker_id,
            session=arrival.session_ref or "",
            study=arrival.study_ref or "",
        )
        if malformed is not None:
            return message_page(_("Cannot start"), malformed, 400)
        if has_withdrawn(session, entry.study.id, arrival.worker_id):
            return message_page(_("You withdrew"), _(WITHDREW), 200)
        if paused and paused_for_newcomers(
            session, entry.study.id, arrival.worker_id, arrival.session_ref
        ):
            return _paused_page()  # early, before the platform is asked; decided under the lock
        if finished and not holds_slot(
            session, entry.study.id, arrival.worker_id, arrival.session_ref
        ):
            return _closed_page()
        ref = published_ref(session, entry.study.id)
        if arrival.study_ref is not None and arrival.study_ref != ref:
            return message_page(
                _("Wrong study"), _("This link belongs to another study. Open it again."), 400
            )
        checked = trust().verifier.arrival(entry.where, entry.study.target, arrival, ref)
        if checked.verdict is Verdict.REFUSED:
            return message_page(
                _("Cannot start"),
                _("{reason}. Open the study from your own account again.").format(
                    reason=checked.reason
                ),
                403,
            )
        if checked.verdict is Verdict.UNVERIFIED:
            return message_page(
                _("Cannot start yet"),
                _("{reason}. Reload this page in a minute.").format(reason=checked.reason),
                503,
            )
        instrument = web_state().instrument(session, entry.study.instrument_id)
        hold = timedelta(seconds=instrument.spec.hit.assignment_duration)
        compose = None
        if instrument.spec.adaptive is not None:  # its HITs are made as participants arrive
            from harness.platform.adaptive import places_composer  # pandas, scipy: only here

            compose = places_composer(entry.study.id, entry.study.instrument_id, instrument.spec)
        try:
            got = allocate_in_arm(
                session,
                entry.study.id,
                arrival.worker_id,
                arrival.session_ref,
                hold=hold,
                paused_stops_new=pausing(entry.platform).at_entry,
                compose=compose,
            )
        except StoreError as exc:
            return message_page(_("Cannot start"), str(exc), 409)
        if (
            isinstance(got, Allocation)
            and got.resumed
            and not holds(request, name, got.session_ref, got.worker)
        ):
            other_browser(session, entry.study.id, got.session_ref, got.worker, request, "arrival")
            return other_browser_page()
    if isinstance(got, Refused) and got.reason is Refusal.PAUSED:  # paused while waiting
        return _paused_page()
    if not isinstance(got, Allocation):
        return message_page(_("No task for you"), _refused_text(entry.platform, got), 200)
    response = redirect(url_for("participants.task", name=name, ref=got.session_ref), 303)
    if not got.resumed:  # a new place: this browser's, and no other's
        bind(response, request, name, got.session_ref, got.worker)
    return response  # type: ignore[return-value]


def _refused_text(platform: PlacesPlatform, refused: Refused) -> str:
    """Why there is no work, and, on a platform whose participants hold a place while their
    submission is open (Prolific), to return it: else the place stays taken until it times
    out."""
    if refused.reason is Refusal.DONE or not platform.capabilities.asks_returns:
        return _(refused.message)
    return _(
        "{refusal} Please return this study on {platform} (its "
        '"Return" button), so that your place goes to someone else; returning is not held '
        "against you."
    ).format(refusal=_(refused.message), platform=platform.label)


def _closed_page() -> Response:
    """What a new arrival sees at a study expired, or finished by adaptive collection."""
    return message_page(_("Study closed"), _("This study is closed. Thank you."), 410)


def _paused_page() -> Response:
    """What a new arrival sees while a study link is paused (work under way goes on)."""
    page = message_page(
        _("Study paused"),
        _(
            "This study is paused: nobody new can start it now. Please try the same link again "
            "later. Thank you for your interest."
        ),
        503,
    )
    page.headers["Retry-After"] = "600"
    page.headers["Cache-Control"] = "no-store"
    return page


@bp.get("/<name>/s/<ref>")
def task(name: str, ref: str) -> Response:
    with session_scope(web_state().engine) as session:
        entry = entry_of(session, name)
        if isinstance(entry, Response):
            return entry
        slot = slot_of(session, entry, ref)
        if slot is None:
            return message_page(_("No such task"), _("This task link is not valid here."), 404)
        if slot.state is SlotState.SUBMITTED:
            return redirect(url_for("participants.done", name=name, ref=ref), 303)  # type: ignore[return-value]
        worker = session.get(Worker, slot.worker_id)
        hit = session.get(Hit, slot.hit_id)
        assert worker is not None and hit is not None
        if not holds(request, name, ref, worker.platform_worker_id):
            other_browser(session, entry.study.id, ref, worker.platform_worker_id, request, "page")
            return other_browser_page()
        facts = hit_facts(session, hit)  # an arm's HIT: the arm's instrument
        instrument = web_state().instrument(session, facts.instrument_id)
        nonce = new_nonce()
        html = render_page(
            instrument,
            HitPlan.from_showings(hit.index, hit.items),
            study_name=entry.study.name,
            hosting=Hosting.EXTERNAL,
            worker_id=worker.platform_worker_id,
            assignment_id=ref,
            hit_id=str(hit.index),
            answers_url=f"{ref}/submit",
            page_token=trust().keys.sign(
                SCOPE, unit=name, assignment_id=ref, worker_id=worker.platform_worker_id
            ),
            csp_nonce=nonce,
        )
    response = Response(html, 200, mimetype="text/html", headers={"Cache-Control": "no-store"})
    return secure_headers(response, nonce=nonce)


@bp.post("/<name>/s/<ref>/submit")
def submit(name: str, ref: str) -> tuple[Response, int]:
    if cross_site(request):
        return refusal(403, _("This submission came from another website; nothing was stored."))
    token = request.form.get(FIELD, "")
    given = request.form.get("workerId", "")
    if not trust().keys.valid(token, SCOPE, unit=name, assignment_id=ref, worker_id=given):
        return refusal(
            403,
            _(
                "This page's token is missing or does not match this task and "
                "participant, so nothing was stored. Reload the task page and submit "
                "again."
            ),
        )
    state = web_state()
    try:
        with session_scope(state.engine) as session:
            outcome = _store(session, name, ref, list(request.form.items(multi=True)))
    except sa.exc.IntegrityError:  # the same session stored by a concurrent request
        return jsonify(ok=True, created=False, message=_(ALREADY_RECORDED)), 200
    if isinstance(outcome, OtherBrowser):  # recorded in a transaction of its own
        with session_scope(state.engine) as session:
            other_browser(session, outcome.study_id, ref, outcome.participant, request, "submit")
        return refusal(403, _(browsers.REFUSED))
    if not isinstance(outcome, Stored):
        return outcome
    after_stored(outcome.study_id, outcome.assignment_pk, ref)
    answer = jsonify(ok=True, created=True, message=_(RECORDED), next=outcome.next_url)
    browsers.forget(answer, name, ref)  # done: the address now shows only the completion page
    return answer, 200


@dataclass(frozen=True)
class Stored:
    study_id: int
    assignment_pk: int
    next_url: str


@dataclass(frozen=True)
class OtherBrowser:
    """A submission from a browser that did not start the session (`harness.web.browsers`)."""

    study_id: int
    participant: str


def _store(
    session: Session, name: str, ref: str, fields: list[tuple[str, str]]
) -> Stored | OtherBrowser | tuple[Response, int]:
    entry = entry_of(session, name)
    if isinstance(entry, Response):
        return refusal(404, _("There is no study {name} here.").format(name=name))
    slot = slot_of(session, entry, ref)
    if slot is None:
        return refusal(404, _("This task link is not valid here; your answers were not stored."))
    worker = session.get(Worker, slot.worker_id)
    hit = session.get(Hit, slot.hit_id)
    assert worker is not None and hit is not None
    given = dict(fields).get("workerId", "")
    if given != worker.platform_worker_id:
        return refusal(403, _("These answers belong to another participant; nothing was stored."))
    if not holds(request, name, ref, given):
        return OtherBrowser(entry.study.id, given)
    if slot.state is SlotState.SUBMITTED:
        return _refuse_done(entry, ref)
    plan = HitPlan.from_showings(hit.index, hit.items)
    instrument = web_state().instrument(session, hit_facts(session, hit).instrument_id)
    read = read_posted(
        fields,
        instrument,
        plan,
        worker_order=instrument.page_order(
            plan,
            study_name=entry.study.name,
            worker_id=worker.platform_worker_id,
            hosting=Hosting.EXTERNAL,
        ),
        opened=aware(slot.reserved_at or hit.created_at),  # no answer before the place was held
        now=utcnow(),
    )
    if isinstance(read, AnswersRefused):
        return refusal(read.status, *read.problems)
    answers = read
    if not settle(session, ref):
        return refusal(409, _(LOST))
    try:
        stored = store_submission(
            session,
            hit,
            ref,
            worker.platform_worker_id,
            answers,
            consent=consent_of(fields, asked=instrument.spec.consent is not None),
        )
    except StoreError as exc:
        session.rollback()
        return refusal(409, _("Your answers could not be stored: {reason}").format(reason=exc))
    if not stored.created:  # a concurrent request stored this session's answers first
        return _refuse_done(entry, ref)
    assert stored.assignment.id is not None
    return Stored(entry.study.id, stored.assignment.id, _next(entry, ref))


def _refuse_done(entry: Entry, ref: str) -> tuple[Response, int]:
    return jsonify(ok=True, created=False, message=_(ALREADY_RECORDED), next=_next(entry, ref)), 200


def _next(entry: Entry, ref: str) -> str:
    """Where the participant goes after submitting: the platform's completion URL with the
    study's code, else harness's completion page."""
    code = completion_code(entry.study.name, entry.where.launch_id)
    target = entry.platform.completion_url(entry.study.target, entry.where.endpoint_url, code)
    if not target:
        return url_for("participants.done", name=entry.study.name, ref=ref)
    sites = entry.platform
    known = (
        sites.worker_origins(entry.study.target, entry.where.endpoint_url)
        if isinstance(sites, WorkerSites)
        else ()
    )
    return checked_redirect(target, known)  # UnknownHost: a misconfigured platform, a 500


@bp.get("/<name>/done/<ref>")
def done(name: str, ref: str) -> Response:
    """The completion page of a study link: the code, and a way to another part."""
    with session_scope(web_state().engine) as session:
        entry = entry_of(session, name)
        if isinstance(entry, Response):
            return entry
        slot = slot_of(session, entry, ref)
        if slot is None or slot.state is not SlotState.SUBMITTED:
            return message_page(_("Not finished"), _("This task is not submitted yet."), 404)
        worker = session.get(Worker, slot.worker_id)
        assert worker is not None
        code = completion_code(entry.study.name, entry.where.launch_id)
        more = None
        if isinstance(entry.platform, AnonymousEntry):  # a link: more parts by the same id
            query: dict[str, Any] = entry.platform.again_query(worker.platform_worker_id)
            more = url_for("participants.arrive", name=name, **query)
    language = current_language()
    text = {
        "thanks": _("Thank you"),
        "recorded": _(RECORDED),
        "code": _("Your completion code:"),
        "more": _("Do another part of the study"),
        "different": _("(different items)."),
    }
    html = _DONE.render(
        code=code, more=more, text=text, language=language, direction=direction(language)
    )
    return Response(html, 200, mimetype="text/html")


def slot_of(session: Session, entry: Entry, ref: str) -> Slot | None:
    slot = session.exec(select(Slot).where(Slot.session_ref == ref)).first()
    if slot is None or slot.study_id != entry.study.id:
        return None
    return slot
