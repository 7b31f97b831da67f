"""Review a study's work: approve, reject, pay bonuses, block workers, replace lost judgments.

Every action is idempotent (doing it twice does it once), records its intent before the
platform call and its result after it, each with its reason, and commits both at once, so a
crash between them is visible in the log. An assignment is never rejected after the platform
approved it (automatically, after the auto-approval delay): the platform's state is read first.

The live screening calls `apply_pending_decisions` with the decisions it stored; `harness
review` calls `review_study`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlmodel import Session, select

from harness.errors import PlatformError
from harness.platform import money
from harness.platform.launch_plan import action_token
from harness.platform.pricing import LARGE_HIT_ASSIGNMENTS
from harness.platform.provider import Provider, SubmissionState
from harness.platform.studies import platform_of
from harness.store.events import record_event
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Event,
    Hit,
    ScreeningDecision,
    Study,
    Worker,
)

FEEDBACK = {
    "quick": (
        "This HIT was answered faster than the items can be read (a median of under "
        "{threshold:g} seconds per item), so we cannot use the answers."
    ),
    "gold_failure": (
        "Many answers in this HIT were far from the agreed answers of the check items included "
        "in it, so we cannot use the answers."
    ),
    "calibration_failure": (
        "This HIT includes check items (a word paired with itself, and items shown twice). "
        "Your answers to them did not match, so we cannot use the answers."
    ),
}
FEEDBACK_DEFAULT = "Your answers in this HIT did not pass the study's quality checks ({name})."
FEEDBACK_TAIL = (
    " If you think this is a mistake, please contact us through MTurk and we will look again."
)
PENDING = ("block", "reject", "replace")


class NotSubmittedYet(PlatformError):
    """The worker has not submitted the assignment on the platform yet (with external hosting,
    the task server stores the answers a moment before the page submits to MTurk)."""


@dataclass(frozen=True)
class ReviewAction:
    """One action, done or (in a dry run) to be done."""

    kind: str  # approve | reject | bonus | block | replace | skip
    subject: str  # assignment, worker or HIT id on the platform
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.detail.items())
        return f"{self.kind} {self.subject}: {self.reason}{extra}"


def rejection_feedback(heuristic: str, threshold: float | None = None) -> str:
    """Feedback a worker can understand: what was checked and what to do if it is wrong."""
    template = FEEDBACK.get(heuristic)
    if template is None:
        text = FEEDBACK_DEFAULT.format(name=heuristic.replace("_", " "))
    else:
        text = template.format(threshold=threshold if threshold is not None else 2)
    return text + FEEDBACK_TAIL


def _log(session: Session, kind: str, study_id: int, subject: str, **payload: Any) -> None:
    """Record an event and commit it now: an intent must be on disk before the call it names."""
    record_event(session, kind, study_id=study_id, subject=subject, payload=payload)
    session.commit()


def _study_id(session: Session, assignment: Assignment) -> int:
    hit = session.get(Hit, assignment.hit_id)
    assert hit is not None
    return hit.study_id


def approve(session: Session, provider: Provider, assignment: Assignment, reason: str) -> bool:
    """Approve a submitted assignment; False when there was nothing to do."""
    if assignment.status is not AssignmentStatus.SUBMITTED:
        return False
    study_id = _study_id(session, assignment)
    aid = assignment.platform_assignment_id
    current = provider.submission(aid)
    if current is None:
        return False  # not submitted on the platform (yet): nothing to approve
    if current.state is not SubmissionState.SUBMITTED:
        _settle(session, assignment, current.state, study_id)
        return False
    _log(session, "review.approve.intent", study_id, aid, reason=reason)
    provider.approve(aid)
    assignment.status = AssignmentStatus.APPROVED
    session.add(assignment)
    _log(session, "review.approved", study_id, aid, reason=reason)
    return True


def reject(
    session: Session, provider: Provider, assignment: Assignment, feedback: str, reason: str
) -> bool:
    """Reject a submitted assignment with feedback; never one that was approved (by review or
    by the platform's auto-approval): that is refused and logged once, with the reason."""
    if assignment.status is AssignmentStatus.REJECTED:
        return False
    study_id = _study_id(session, assignment)
    aid = assignment.platform_assignment_id
    if assignment.status is AssignmentStatus.APPROVED:
        _refuse_rejection(session, study_id, aid, reason, "it was approved already")
        return False
    current = provider.submission(aid)
    if current is None:
        raise NotSubmittedYet(
            f"assignment {aid} is not submitted on the platform yet; cannot reject"
        )
    if current.state is SubmissionState.APPROVED:
        _settle(session, assignment, current.state, study_id)
        _refuse_rejection(
            session, study_id, aid, reason, "the platform approved it already (auto-approval)"
        )
        return False
    if current.state is SubmissionState.REJECTED:
        _settle(session, assignment, current.state, study_id)
        return False
    _log(session, "review.reject.intent", study_id, aid, reason=reason, feedback=feedback)
    provider.reject(aid, feedback)
    assignment.status = AssignmentStatus.REJECTED
    session.add(assignment)
    _log(session, "review.rejected", study_id, aid, reason=reason, feedback=feedback)
    return True


def _refuse_rejection(session: Session, study_id: int, aid: str, reason: str, why: str) -> None:
    """Log (once per assignment) that a rejection was not done: approved work stays approved."""
    if not _done(session, "review.reject.refused", aid, study_id):
        _log(
            session,
            "review.reject.refused",
            study_id,
            aid,
            reason=reason,
            why=f"{why}; an approved assignment is never rejected",
        )


def _settle(
    session: Session, assignment: Assignment, state: SubmissionState, study_id: int
) -> None:
    """Record the platform's decision when the store has not seen it yet."""
    wanted = AssignmentStatus(state.value)
    if assignment.status is wanted:
        return
    record_event(
        session,
        "assignment.status",
        study_id=study_id,
        subject=assignment.platform_assignment_id,
        payload={"from": assignment.status.value, "to": wanted.value, "source": "platform"},
    )
    assignment.status = wanted
    session.add(assignment)
    session.commit()


def pay_bonus(
    session: Session, provider: Provider, assignment: Assignment, amount: Decimal, reason: str
) -> bool:
    """Pay the assignment's worker a bonus once per (assignment, reason)."""
    token = action_token("bonus", assignment.platform_assignment_id, reason)
    if _done(session, "review.bonus", token):
        return False
    worker = session.get(Worker, assignment.worker_id)
    assert worker is not None
    study_id = _study_id(session, assignment)
    aid = assignment.platform_assignment_id
    _log(session, "review.bonus.intent", study_id, token, assignment=aid, amount=str(amount))
    provider.bonus(worker.platform_worker_id, aid, amount, reason, token)
    cost = provider.bonus_cost(amount)
    _log(
        session,
        "review.bonus",
        study_id,
        token,
        assignment=aid,
        worker=worker.platform_worker_id,
        amount=str(amount),
        cost=str(cost),
        reason=reason,
    )
    return True


def block_worker(
    session: Session, provider: Provider, study: Study, worker_id: str, reason: str
) -> bool:
    """Keep a worker from the rest of the study (without notifying them); once per study."""
    assert study.id is not None
    if _done(session, "worker.blocked", worker_id, study.id):
        return False
    platform = platform_of(session, study)
    if platform.block_ref is None:
        raise PlatformError(f"study {study.name!r} has no exclusion group yet; launch it first")
    _log(session, "worker.block.intent", study.id, worker_id, reason=reason)
    provider.exclude(platform.block_ref, worker_id)
    _log(session, "worker.blocked", study.id, worker_id, reason=reason)
    return True


def add_raters(session: Session, provider: Provider, hit: Hit, count: int, reason: str) -> bool:
    """Add ``count`` assignments to a HIT, once per (HIT, reason).

    Refused (before any call) when it would take a HIT from fewer than 10 assignments to 10 or
    more, which MTurk does not allow (`PlatformError`), and when it would take what the study
    has committed over its budget (logged as ``review.replace.refused``, once; False).
    """
    assert hit.platform_hit_id is not None
    token = action_token("raters", hit.platform_hit_id, reason)
    if _done(session, "review.replaced", token):
        return False
    new = hit.max_assignments + count
    if hit.max_assignments < LARGE_HIT_ASSIGNMENTS <= new:
        raise PlatformError(
            f"HIT {hit.platform_hit_id} has {hit.max_assignments} assignments; MTurk cannot "
            f"raise it to {new} ({LARGE_HIT_ASSIGNMENTS} or more): post a new HIT instead"
        )
    study = session.get(Study, hit.study_id)
    assert study is not None
    if study.budget is not None:
        reward = platform_of(session, study).reward
        extra = money.hit_total(provider, reward, new) / new * count
        after = money.committed(session, provider, study, reward) + extra
        if after > study.budget:
            if not _done(session, "review.replace.refused", token):
                _log(
                    session,
                    "review.replace.refused",
                    hit.study_id,
                    token,
                    hit=hit.platform_hit_id,
                    reason=reason,
                    why=f"committed would be ${after:.2f}, over the budget ${study.budget}",
                )
            return False
    _log(
        session, "review.replace.intent", hit.study_id, token, hit=hit.platform_hit_id, count=count
    )
    provider.add_raters(hit.platform_hit_id, count, token)
    hit.max_assignments = new
    session.add(hit)
    _log(
        session,
        "review.replaced",
        hit.study_id,
        token,
        hit=hit.platform_hit_id,
        count=count,
        reason=reason,
    )
    return True


def _done(session: Session, kind: str, subject: str, study_id: int | None = None) -> bool:
    query = select(Event.id).where(Event.kind == kind, Event.subject == subject)
    if study_id is not None:
        query = query.where(Event.study_id == study_id)
    return session.exec(query.limit(1)).first() is not None


# -- screening decisions --------------------------------------------------------------------
def pending_decisions(session: Session, study: Study) -> list[ScreeningDecision]:
    """Decisions to carry out, oldest first: raised flags with a block, reject or replace
    action, not applied yet. Only the latest decision of each (worker, heuristic) counts, as
    live screening stores them: a flag raised and since cleared is not pending."""
    query = (
        select(ScreeningDecision)
        .where(ScreeningDecision.study_id == study.id)
        .order_by(ScreeningDecision.id)  # type: ignore[arg-type]
    )
    latest = {(d.worker_id, d.heuristic): d for d in session.exec(query)}
    pending = [d for d in latest.values() if d.flag and not d.applied and d.action in PENDING]
    return sorted(pending, key=lambda d: d.id or 0)


def _targets(session: Session, study: Study, decision: ScreeningDecision) -> list[Assignment]:
    """The assignments a decision is about: its own, else the worker's in this study."""
    if decision.assignment_id is not None:
        found = session.get(Assignment, decision.assignment_id)
        return [found] if found is not None else []
    return _study_assignments(session, study, Assignment.worker_id == decision.worker_id)


def _reason(decision: ScreeningDecision) -> str:
    score = "" if decision.score is None else f" (score {decision.score:.3g})"
    return f"screening {decision.heuristic}{score}"


def decision_actions(
    session: Session, study: Study, decision: ScreeningDecision
) -> list[ReviewAction]:
    """What applying a decision does (the plan a dry run prints)."""
    worker = session.get(Worker, decision.worker_id)
    assert worker is not None
    reason = _reason(decision)
    if decision.action == "block":
        return [ReviewAction("block", worker.platform_worker_id, reason)]
    out = []
    for assignment in _targets(session, study, decision):
        if decision.action == "reject" and assignment.status is AssignmentStatus.SUBMITTED:
            out.append(ReviewAction("reject", assignment.platform_assignment_id, reason))
        elif decision.action == "replace":
            hit = session.get(Hit, assignment.hit_id)
            assert hit is not None and hit.platform_hit_id is not None
            out.append(
                ReviewAction(
                    "replace",
                    hit.platform_hit_id,
                    f"{reason}: replaces {assignment.platform_assignment_id}",
                )
            )
    return out


def apply_pending_decisions(
    session: Session, provider: Provider, study: Study
) -> list[ReviewAction]:
    """Perform the screening decisions not applied yet (block, reject, replace); mark them.

    A rejection of an assignment not yet submitted on the platform leaves its decision
    pending for the next call (a later sync or review); the other decisions go ahead.
    """
    assert study.id is not None
    done: list[ReviewAction] = []
    for decision in pending_decisions(session, study):
        try:
            done += _apply(session, provider, study, decision)
        except NotSubmittedYet:
            continue
        worker = session.get(Worker, decision.worker_id)
        assert worker is not None
        decision.applied = True
        session.add(decision)
        _log(
            session,
            "screening.applied",
            study.id,
            worker.platform_worker_id,
            decision=decision.id,
            action=decision.action,
            heuristic=decision.heuristic,
        )
    return done


def _apply(
    session: Session, provider: Provider, study: Study, decision: ScreeningDecision
) -> list[ReviewAction]:
    worker = session.get(Worker, decision.worker_id)
    assert worker is not None
    reason = _reason(decision)
    done = []
    if decision.action == "block":
        if block_worker(session, provider, study, worker.platform_worker_id, reason):
            done.append(ReviewAction("block", worker.platform_worker_id, reason))
    for assignment in _targets(session, study, decision):
        if decision.action == "reject":
            feedback = rejection_feedback(decision.heuristic, decision.threshold)
            if reject(session, provider, assignment, feedback, reason):
                done.append(ReviewAction("reject", assignment.platform_assignment_id, reason))
        elif decision.action == "replace":
            hit = session.get(Hit, assignment.hit_id)
            assert hit is not None
            why = f"{reason}: replaces {assignment.platform_assignment_id}"
            if add_raters(session, provider, hit, 1, why):
                done.append(ReviewAction("replace", str(hit.platform_hit_id), why))
    return done


def review_study(
    session: Session, provider: Provider, study: Study, *, dry_run: bool = False
) -> list[ReviewAction]:
    """Apply pending screening decisions, then approve every other submitted assignment.

    ``dry_run``: return what would be done and do nothing.
    """
    if dry_run:
        planned = [
            a
            for d in pending_decisions(session, study)
            for a in decision_actions(session, study, d)
        ]
        rejected = {a.subject for a in planned if a.kind == "reject"}
        planned += [
            ReviewAction("approve", a.platform_assignment_id, "submitted, not flagged")
            for a in _submitted(session, study)
            if a.platform_assignment_id not in rejected
        ]
        return planned
    done = apply_pending_decisions(session, provider, study)
    for assignment in _submitted(session, study):
        if approve(session, provider, assignment, "submitted, not flagged"):
            done.append(
                ReviewAction("approve", assignment.platform_assignment_id, "submitted, not flagged")
            )
    return done


def _submitted(session: Session, study: Study) -> list[Assignment]:
    return _study_assignments(session, study, Assignment.status == AssignmentStatus.SUBMITTED)


def _study_assignments(session: Session, study: Study, condition: Any) -> list[Assignment]:
    """The study's assignments meeting ``condition``, oldest first."""
    return list(
        session.exec(
            select(Assignment)
            .join(Hit, Hit.id == Assignment.hit_id)  # type: ignore[arg-type]
            .where(Hit.study_id == study.id, condition)
            .order_by(Assignment.id)  # type: ignore[arg-type]
        )
    )
