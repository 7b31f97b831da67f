"""What a person does from a study page: block or unblock a worker, send a worker a message,
approve or reject a submission with feedback, pay a bonus, pause, resume or expire the study,
add raters to a HIT, carry out or overrule a screening decision.

Each goes through the same functions as the command line (`harness.platform.actions`,
`harness.platform.review`, `harness.platform.pause`, `harness.platform.expire`), so it is
idempotent and logged as events with its reason, which starts with ``dashboard:`` (the study
page shows who decided). Every route is a POST that `access.guard` lets through only with a
session and its CSRF token. A refusal (the platform's, a budget's, a wrong field) comes back as
a message on the page; where a platform only records an action (a study link pays and tells
nobody), the message says so.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, flash, redirect, request, url_for
from sqlmodel import Session, col, select
from werkzeug.wrappers import Response

from harness.clock import utcnow
from harness.errors import HarnessError
from harness.money import money
from harness.platform.actions import (
    NotSubmittedYet,
    add_raters,
    approve,
    approve_all,
    block_worker,
    reject,
    unblock_worker,
)
from harness.platform.bonuses import BonusQuote, bonus_token, parse_amount, pay_bonus, quote
from harness.platform.contract import Provider, pausing
from harness.platform.decisions import apply_decision, overrule_decision
from harness.platform.expire import expire_study
from harness.platform.launch_plan import action_token
from harness.platform.messages import message_worker
from harness.platform.pause import pause_study, resume_study
from harness.platform.registry import provider_for
from harness.platform.review import unflagged_submissions
from harness.store.action_claims import ActionInProgress
from harness.store.database import session_scope
from harness.store.decisions import pending_decisions
from harness.store.events import EventKind, event_logged
from harness.store.hits import study_hit
from harness.store.locks import lock_study
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Event,
    Hit,
    ScreeningDecision,
    StudyStatus,
    Worker,
)
from harness.store.studies import LaunchedStudy, launched_study, study_status
from harness.store.withdrawals import withdrawn_workers
from harness.web.dashboard.views import dashboard_state, page

bp = Blueprint("dashboard_actions", __name__)

REASON = "dashboard: {what}"
WITHDREW = "their participant withdrew from the study, which costs nothing (review approves it)"
RECORDED = (
    " Recorded only: {platform} pays and tells nobody through harness; the event log "
    "keeps it for you to act on."
)


class Refused(HarnessError):
    """An action the page asked for cannot be done as asked (the message says why)."""


def _act(name: str, work: Callable[[Session, LaunchedStudy], str | Response]) -> Response:
    """Run ``work`` on the study (in one session), flash what it says or why it failed, and
    go back to the study page (read afresh, so it shows what was done); a page ``work``
    answers with (a confirmation) is shown instead."""
    state = dashboard_state()
    study_id: int | None = None
    try:
        with session_scope(state.engine) as session:
            running = launched_study(session, name)
            study_id = running.id
            message = work(session, running)
        if isinstance(message, Response):
            return message
        flash(message, "done")
    except HarnessError as exc:
        flash(f"Not done: {exc}", "refused")
    finally:
        if study_id is not None:  # even a refused action may have logged what it tried
            state.watcher.moved(study_id)
    return redirect(
        back_within(request.form.get("back", ""), url_for("dashboard.study", name=name)), 303
    )


def back_within(target: str, study_page: str) -> str:
    """Where an action returns: the page it was posted from when that is the study's page or
    one of its pages (``/dashboard/study/small/...``, never study ``smaller``'s), else the
    study's page."""
    inside = target == study_page or target.startswith(tuple(study_page + c for c in "/?#"))
    return target if inside else study_page


EXPIRE_KINDS = (EventKind.HIT_EXPIRE_INTENT, EventKind.STUDY_EXPIRED)
PAUSE_KINDS = (
    EventKind.STUDY_PAUSE_INTENT,
    EventKind.STUDY_PAUSED,
    EventKind.STUDY_RESUME_INTENT,
    EventKind.STUDY_RESUMED,
)
RATERS_KINDS = (EventKind.REPLACE_INTENT, EventKind.REPLACED)
SAID = {
    EventKind.HIT_EXPIRE_INTENT: "The study was being expired",
    EventKind.STUDY_EXPIRED: "The study was expired",
    EventKind.STUDY_PAUSE_INTENT: "The study was being paused",
    EventKind.STUDY_PAUSED: "The study was paused",
    EventKind.STUDY_RESUME_INTENT: "The study was being resumed",
    EventKind.STUDY_RESUMED: "The study was resumed",
    EventKind.REPLACE_INTENT: "Raters were being added to this HIT",
    EventKind.REPLACED: "Raters were added to this HIT",
}
"""What a form's action found done since its page was read, in words."""


def _once(
    session: Session,
    running: LaunchedStudy,
    kinds: tuple[EventKind, ...],
    about: Callable[[Event], bool] = lambda _e: True,
) -> None:
    """Claim the action a form asks for: `Refused`, saying what happened, when one of
    ``kinds`` (``about`` the same thing) was logged since the page the form came from was
    read (its ``seen`` field: the study's newest event then). A second click, a second tab
    or a stale one is told, not obeyed. Holds the study's lock until the caller's
    transaction ends, so of two forms posted at once the second sees the first's intent."""
    seen = request.form.get("seen", "")
    if not seen.isdigit():
        return  # a form without it (a script's post): the action's own checks decide
    lock_study(session, running.id)
    done = [
        e
        for e in session.exec(
            select(Event)
            .where(
                Event.study_id == running.id,
                col(Event.kind).in_(kinds),
                col(Event.id) > int(seen),
            )
            .order_by(col(Event.id))
        )
        if about(e)
    ]
    if done:
        latest = done[-1]
        why = latest.payload.get("reason")
        raise Refused(
            f"{SAID.get(latest.kind, latest.kind.value)} at {latest.at:%H:%M:%S}"
            + (f" ({why})" if why else "")
            + ", after this page was read: nothing was done again. Reload the page to see "
            "it, and ask again if you still want it."
        )


def _recorded(provider: Provider) -> str:
    """What to add to a done action's message where the platform only records it."""
    if provider.platform.capabilities.pays:
        return ""
    return RECORDED.format(platform=provider.platform.label)


def _reason(default: str) -> str:
    """The reason the form gives for the action (``default`` when it gives none), as logged."""
    return REASON.format(what=request.form.get("reason", "").strip() or default)


def _field(name: str) -> str:
    value = request.form.get(name, "").strip()
    if not value:
        raise Refused(f"the form's {name!r} field is empty: fill it in")
    return value


def _assignment(session: Session, running: LaunchedStudy, aid: str) -> Assignment:
    found = session.exec(
        select(Assignment)
        .join(Hit)
        .where(Assignment.platform_assignment_id == aid, Hit.study_id == running.id)
    ).first()
    if found is None:
        raise Refused(f"study {running.name!r} has no assignment {aid!r}")
    return found


@bp.post("/study/<name>/block")
def block(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        worker = _field("worker")
        reason = _reason("blocked by hand")
        done = block_worker(session, provider_for(running), running, worker, reason)
        return f"Blocked {worker}." if done else f"{worker} was blocked already."

    return _act(name, work)


@bp.post("/study/<name>/unblock")
def unblock(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        worker = _field("worker")
        reason = _reason("unblocked by hand")
        provider = provider_for(running)
        done = unblock_worker(session, provider, running, worker, reason)
        if not done:
            return f"{worker} was not blocked."
        once = provider.platform.capabilities.one_submission_per_study
        return f"Unblocked {worker}." + (
            f" On {provider.platform.label} a participant takes part in a study once: they "
            "can start it only if they had not submitted to it."
            if once
            else ""
        )

    return _act(name, work)


@bp.post("/study/<name>/message")
def message(name: str) -> Response:
    """Send a worker a message (a subject where the platform has one, and a text), once per
    (worker, subject, text): a second click or tab is told it was sent."""

    def work(session: Session, running: LaunchedStudy) -> str:
        worker = _field("worker")
        subject = request.form.get("subject", "")
        text = request.form.get("text", "")
        reason = REASON.format(what="a message by hand")
        try:
            sent = message_worker(
                session, provider_for(running), running, worker, subject, text, reason
            )
        except ActionInProgress:
            raise Refused(
                f"this message to {worker} is being sent now (another tab, a second click or "
                "another process asked first)"
            ) from None
        if not sent:
            return f"This message was sent to {worker} already: not sent again."
        return f"Message sent to {worker}."

    return _act(name, work)


@bp.post("/study/<name>/approve")
def approve_submission(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        assignment = _assignment(session, running, _field("assignment"))
        reason = REASON.format(what="approved by hand")
        provider = provider_for(running)
        done = approve(session, provider, running, assignment, reason)
        aid = assignment.platform_assignment_id
        if not done:
            return f"{aid}: nothing to approve (not submitted)."
        return f"Approved {aid}." + _recorded(provider)

    return _act(name, work)


@bp.post("/study/<name>/reject")
def reject_submission(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        assignment = _assignment(session, running, _field("assignment"))
        feedback = _field("feedback")
        reason = REASON.format(what="rejected by hand")
        provider = provider_for(running)
        done = reject(session, provider, running, assignment, feedback, reason)
        aid = assignment.platform_assignment_id
        if not done and assignment.worker_id in withdrawn_workers(session, running.id):
            return f"{aid} was not rejected: {WITHDREW}."
        if not done:
            return f"{aid} was not rejected (see the event feed)."
        return f"Rejected {aid}." + _recorded(provider)

    return _act(name, work)


@bp.post("/study/<name>/review-many")
def review_many(name: str) -> Response:
    """Approve or reject the submissions ticked on the page (``assignment``, repeated), every
    one the list of submissions showed (``through``: the newest listed's store id, so that
    what arrived after the page was read is left for a person to see), or approve every
    submission awaiting review from a worker screening has not flagged (``unflagged``)."""

    def work(session: Session, running: LaunchedStudy) -> str:
        verdict = _field("verdict")
        if verdict not in ("approve", "reject"):
            raise Refused(f"submissions are approved or rejected, not {verdict!r}")
        provider = provider_for(running)
        if request.form.get("unflagged") and verdict == "approve":
            chosen = unflagged_submissions(session, running.id)
        elif request.form.get("through"):
            chosen = _listed(session, running, _whole("through"))
        else:
            chosen = [_assignment(session, running, aid) for aid in _ticked()]
        if verdict == "approve":
            reason = REASON.format(what="approved by hand, with others")
            done = approve_all(session, provider, running, chosen, reason)
            return f"Approved {len(done)} of {len(chosen)} submissions." + _recorded(provider)
        feedback = _field("feedback")
        reason = REASON.format(what="rejected by hand, with others")
        rejected, waiting = 0, []
        for assignment in chosen:
            try:
                rejected += reject(session, provider, running, assignment, feedback, reason)
            except NotSubmittedYet:
                waiting.append(assignment.platform_assignment_id)
        withdrew = withdrawn_workers(session, running.id)
        spared = sum(1 for a in chosen if a.worker_id in withdrew)
        undone = len(chosen) - rejected - len(waiting) - spared
        return (
            f"Rejected {rejected} of {len(chosen)} submissions."
            + (f" {spared} not rejected: {WITHDREW}." if spared else "")
            + (f" {undone} were decided already (see the event feed)." if undone else "")
            + (f" Not submitted on the platform yet: {', '.join(waiting)}." if waiting else "")
            + _recorded(provider)
        )

    return _act(name, work)


def _whole(name: str) -> int:
    text = _field(name)
    if not text.isdigit():
        raise Refused(f"the form's {name!r} field should be a whole number, got {text!r}")
    return int(text)


def _listed(session: Session, running: LaunchedStudy, through: int) -> list[Assignment]:
    """The study's submissions awaiting review stored up to ``through`` (a store id)."""
    return list(
        session.exec(
            select(Assignment)
            .join(Hit)
            .where(
                Hit.study_id == running.id,
                Assignment.status == AssignmentStatus.SUBMITTED,
                col(Assignment.id) <= through,
            )
            .order_by(col(Assignment.id))
        )
    )


def _ticked() -> list[str]:
    chosen = [a.strip() for a in request.form.getlist("assignment") if a.strip()]
    if not chosen:
        raise Refused("no submission is ticked: tick the ones to approve or reject")
    if len(chosen) > MANY:
        raise Refused(f"at most {MANY} submissions at once, got {len(chosen)}")
    return list(dict.fromkeys(chosen))


MANY = 1000
"""The most submissions one form approves or rejects."""


@bp.post("/study/<name>/bonus")
def bonus(name: str) -> Response:
    """Pay a bonus: first a page naming its total (with the platform's fee) and the budget
    left after it; paid when that page's button posts the same total back."""

    def work(session: Session, running: LaunchedStudy) -> str | Response:
        assignment = _assignment(session, running, _field("assignment"))
        amount = parse_amount(_field("amount"))
        reason = _field("reason")  # the worker reads it
        provider = provider_for(running)
        token = bonus_token(assignment, amount, reason)
        priced = quote(session, provider.platform, running, assignment, amount, token)
        if request.form.get("confirm_total") != str(priced.cost):
            return _confirm_bonus(session, running, assignment, reason, priced)
        aid = assignment.platform_assignment_id
        paid = money(amount, running.study.currency)
        try:
            done = pay_bonus(session, provider, running, assignment, amount, reason)
        except ActionInProgress:
            raise Refused(
                f"this {paid} bonus for {aid} is being paid now (another tab, a second "
                "click or another process asked first): reload in a moment to see it paid"
            ) from None
        if not done:
            if event_logged(session, EventKind.BONUS_UNCERTAIN, token):
                return (
                    f"The {paid} bonus for {aid} was sent to the platform earlier and is not "
                    "shown paid yet: harness never sends it again; check it on the platform."
                )
            return f"This {paid} bonus for {aid} was paid already."
        if not provider.platform.capabilities.pays:
            return f"A {paid} bonus for {aid}'s participant." + _recorded(provider)
        cost = money(priced.cost, running.study.currency)
        return f"Paid {paid} to {aid}'s worker ({cost} with the platform's fee)."

    return _act(name, work)


def _confirm_bonus(
    session: Session,
    running: LaunchedStudy,
    assignment: Assignment,
    reason: str,
    priced: BonusQuote,
) -> Response:
    """The page that asks before a bonus is paid, naming what it costs in all."""
    worker = session.get(Worker, assignment.worker_id)
    assert worker is not None
    html = page(
        "confirm_bonus.html",
        name=running.name,
        aid=assignment.platform_assignment_id,
        worker=worker.platform_worker_id,
        reason=reason,
        q=priced,
        back=request.form.get("back", ""),
    )
    return Response(html, 200, content_type="text/html; charset=utf-8")


@bp.post("/study/<name>/expire")
def expire(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        if request.form.get("confirm") != name:
            raise Refused(f"type the study's name ({name}) to expire it")
        _once(session, running, EXPIRE_KINDS)
        if study_status(session, running.id) is StudyStatus.EXPIRED:
            return "The study was expired already: nothing done."
        count = expire_study(dashboard_state().engine, provider_for(running), running)
        return f"Expired {count} HITs: nobody new can start; what is submitted stays."

    return _act(name, work)


@bp.post("/study/<name>/pause")
def pause(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        provider = provider_for(running)
        reason = _reason("paused by hand")
        _once(session, running, PAUSE_KINDS)
        if not pause_study(session, provider, running, reason):
            return "The study was paused already."
        return f"Paused: {pausing(provider.platform).says}"

    return _act(name, work)


@bp.post("/study/<name>/resume")
def resume(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        reason = _reason("resumed by hand")
        _once(session, running, PAUSE_KINDS)
        if not resume_study(session, provider_for(running), running, reason):
            return "The study was running already."
        return "Resumed: new workers can start the study again."

    return _act(name, work)


@bp.post("/study/<name>/raters")
def raters(name: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        try:
            index, count = int(_field("hit")), int(_field("count"))
        except ValueError:
            raise Refused("HIT and raters: expected whole numbers") from None
        if not 1 <= count <= 100:
            raise Refused(f"raters to add: expected 1 to 100, got {count}")
        hit = study_hit(session, running.id, index)
        if hit is None or hit.platform_hit_id is None:
            raise Refused(f"study {name!r} has no posted HIT {index}")
        _once(session, running, RATERS_KINDS, lambda e: e.payload.get("hit") == hit.platform_hit_id)
        asked = utcnow().isoformat(timespec="microseconds")
        reason = REASON.format(what=f"{count} more raters, asked at {asked}")
        token = action_token("raters", hit.platform_hit_id, reason)
        done = add_raters(session, provider_for(running), running, hit, count, reason)
        if not done:
            refused = session.exec(
                select(Event).where(Event.kind == EventKind.REPLACE_REFUSED, Event.subject == token)
            ).first()
            why = refused.payload.get("why") if refused is not None else "done already"
            raise Refused(f"HIT {index}: no raters added: {why}")
        return f"HIT {index}: {count} more raters."

    return _act(name, work)


@bp.post("/study/<name>/worker/<worker>/decisions/<verdict>")
def worker_decisions(name: str, worker: str, verdict: str) -> Response:
    """Carry out or overrule every pending screening decision about one worker at once; the
    message lists them with the assignments they are about."""

    def work(session: Session, running: LaunchedStudy) -> str:
        if verdict not in ("accept", "overrule"):
            raise Refused(f"a decision is accepted or overruled, not {verdict!r}")
        found = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).first()
        pending = [
            d for d in pending_decisions(session, running.id) if found and d.worker_id == found.id
        ]
        if not pending:
            return f"{worker} has no pending screening decision: nothing changed."
        aids = dict(
            session.exec(
                select(Assignment.id, Assignment.platform_assignment_id).where(
                    col(Assignment.id).in_([d.assignment_id for d in pending if d.assignment_id])
                )
            ).all()
        )
        provider = provider_for(running) if verdict == "accept" else None
        reason = _reason("overruled")
        done: list[str] = []
        for d in pending:
            about = f"{d.action.value} " + (
                aids.get(d.assignment_id, "?") if d.assignment_id else "all their work"
            )
            if provider is not None:
                if apply_decision(session, provider, running, d, by="dashboard"):
                    done.append(about)
            elif overrule_decision(session, running, d, reason):
                done.append(about)
        verb = "Carried out" if provider is not None else "Overruled"
        left = len(pending) - len(done)
        return (
            f"{verb} {len(done)} of {worker}'s pending decisions ({'; '.join(done) or 'none'})"
            + (f"; {left} no longer pending or waiting for the platform." if left else ".")
        )

    return _act(name, work)


@bp.post("/study/<name>/decision/<int:decision_id>/<verdict>")
def decision(name: str, decision_id: int, verdict: str) -> Response:
    def work(session: Session, running: LaunchedStudy) -> str:
        found = session.get(ScreeningDecision, decision_id)
        if found is None or found.study_id != running.id:
            raise Refused(f"study {name!r} has no screening decision {decision_id}")
        if verdict == "accept":
            done = apply_decision(session, provider_for(running), running, found, by="dashboard")
            return (
                f"Decision {decision_id} carried out: {len(done)} action(s)."
                if done
                else (
                    f"Decision {decision_id}: nothing done now (applied already, or waiting for "
                    "the platform)."
                )
            )
        if verdict == "overrule":
            reason = _reason("overruled")
            if overrule_decision(session, running, found, reason):
                return f"Decision {decision_id} overruled: it will not be carried out."
            return f"Decision {decision_id} was no longer pending; nothing changed."
        raise Refused(f"a decision is accepted or overruled, not {verdict!r}")

    return _act(name, work)
