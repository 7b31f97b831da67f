"""What review does on a platform: approve (one by one or in bulk), reject, ask for a return,
block workers, add raters (bonuses: `harness.platform.bonuses`).

Every action is idempotent (doing it twice does it once), records its intent before the
platform call and its result after it, each with its reason, and commits both at once, so a
crash between them is visible in the log. An assignment is never rejected after the platform
approved it (automatically, after the auto-approval delay): the platform's state is read first,
and recorded (`record_platform_status`, as sync records it).
Nor is a participant's who withdrew from the study: withdrawing costs them nothing.
A block, rejection or return left half done by a process that died is finished by the next
process to try it, at once (`harness.store.action_claims`): what the platform shows done (an
assignment rejected, a worker holding the exclusion) is logged as recovered, not done twice.

`harness.platform.decisions` uses these to carry out screening's decisions,
`harness.platform.review` to review a study; the dashboard's buttons use them too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from sqlmodel import Session, col, select

from harness.errors import PlatformError
from harness.money import money as written
from harness.platform import money
from harness.platform.contract import PlacesProvider, Provider, Submission, SubmissionState
from harness.platform.launch_plan import action_token
from harness.platform.places import places_of, published_ref, study_ref_of
from harness.store.action_claims import begin_action, finish_abandoned, intent
from harness.store.events import EventKind, event_logged, record_event, worker_blocked
from harness.store.locks import lock_places
from harness.store.models import Assignment, AssignmentStatus, Hit
from harness.store.studies import LaunchedStudy
from harness.store.withdrawals import withdrawn_workers

APPROVED = "an approved assignment is never rejected"
WITHDREW = (
    "the participant withdrew from the study; withdrawing costs them nothing, so their work "
    "is approved, never rejected"
)


class ActionKind(StrEnum):
    """What a review action does on the platform."""

    APPROVE = "approve"
    REJECT = "reject"
    BLOCK = "block"
    REPLACE = "replace"
    RETURN = "request_return"


class NotSubmittedYet(PlatformError):
    """The worker has not submitted the assignment on the platform yet (with external hosting,
    the task server stores the answers a moment before the page submits to MTurk)."""


@dataclass(frozen=True)
class ReviewAction:
    """One action, done or (in a dry run) to be done."""

    kind: ActionKind
    subject: str  # assignment, worker or HIT id on the platform
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.detail.items())
        return f"{self.kind.value} {self.subject}: {self.reason}{extra}"


def log(session: Session, kind: EventKind, study_id: int, subject: str, **payload: Any) -> None:
    """Record an event and commit it now: an intent must be on disk before the call it names."""
    record_event(session, kind, study_id=study_id, subject=subject, payload=payload)
    session.commit()


def approve(
    session: Session, provider: Provider, study: LaunchedStudy, assignment: Assignment, reason: str
) -> bool:
    """Approve a submitted assignment; False when there was nothing to do."""
    if assignment.status is not AssignmentStatus.SUBMITTED:
        return False
    aid = assignment.platform_assignment_id
    current = provider.submission(aid)
    if current is None:
        return False  # not submitted on the platform (yet): nothing to approve
    if current.state is not SubmissionState.SUBMITTED:
        _settle(session, assignment, current.state, study.id)
        return False
    log(session, EventKind.APPROVE_INTENT, study.id, aid, reason=reason)
    provider.approve(aid)
    assignment.status = AssignmentStatus.APPROVED
    session.add(assignment)
    log(session, EventKind.APPROVED, study.id, aid, reason=reason)
    return True


BULK = 100
"""Submissions approved per bulk call."""


@runtime_checkable
class BulkApprover(Protocol):
    """A places provider with a bulk approve (Prolific)."""

    def approve_many(self, assignment_ids: list[str]) -> None: ...

    def study_submissions(self, study_ref: str) -> list[Submission]: ...


def approve_all(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    assignments: list[Assignment],
    reason: str,
) -> list[str]:
    """Approve submitted assignments; the platform ids approved now. One call per `BULK`
    where the platform approves in bulk (`BulkApprover`), else one per assignment (`approve`).

    The study's submissions are read in one list first: only those awaiting review are sent.
    Every intent is committed before its call and every approval recorded after, once each; a
    run killed between the call and the record finds, on the next run, the intent logged, no
    approval, and the platform saying approved: it records the approval then (the platform
    is not asked twice)."""
    ref = published_ref(session, study.id)
    if not isinstance(provider, BulkApprover) or ref is None:
        return [
            a.platform_assignment_id
            for a in assignments
            if approve(session, provider, study, a, reason)
        ]
    states = {s.assignment_id: s.state for s in provider.study_submissions(ref)}
    done: list[str] = []
    due: list[Assignment] = []
    for assignment in assignments:
        aid = assignment.platform_assignment_id
        state = states.get(aid)
        if assignment.status is not AssignmentStatus.SUBMITTED or state is None:
            continue
        if state is SubmissionState.SUBMITTED:
            due.append(assignment)
        elif state is SubmissionState.APPROVED and _approval_unrecorded(session, study.id, aid):
            _record_approval(session, study.id, assignment, reason, recovered=True)
            done.append(aid)
        else:
            _settle(session, assignment, state, study.id)
    for start in range(0, len(due), BULK):
        chunk = due[start : start + BULK]
        ids = [a.platform_assignment_id for a in chunk]
        for aid in ids:
            record_event(
                session,
                EventKind.APPROVE_INTENT,
                study_id=study.id,
                subject=aid,
                payload={"reason": reason, "bulk": len(ids)},
            )
        session.commit()
        provider.approve_many(ids)
        for assignment in chunk:
            _record_approval(session, study.id, assignment, reason, commit=False)
        session.commit()
        done += ids
    return done


def _approval_unrecorded(session: Session, study_id: int, aid: str) -> bool:
    return event_logged(session, EventKind.APPROVE_INTENT, aid, study_id) and not event_logged(
        session, EventKind.APPROVED, aid, study_id
    )


def _record_approval(
    session: Session,
    study_id: int,
    assignment: Assignment,
    reason: str,
    *,
    recovered: bool = False,
    commit: bool = True,
) -> None:
    assignment.status = AssignmentStatus.APPROVED
    session.add(assignment)
    payload: dict[str, Any] = {"reason": reason}
    if recovered:
        payload["recovered"] = "the platform approved it; the record was lost to a crash"
    record_event(
        session,
        EventKind.APPROVED,
        study_id=study_id,
        subject=assignment.platform_assignment_id,
        payload=payload,
    )
    if commit:
        session.commit()


def reject(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    assignment: Assignment,
    feedback: str,
    reason: str,
) -> bool:
    """Reject a submitted assignment with feedback; never one that was approved (by review or
    by the platform's auto-approval): that is refused and logged once, with the reason."""
    if assignment.status is AssignmentStatus.REJECTED:
        return False
    aid = assignment.platform_assignment_id
    if assignment.status is AssignmentStatus.APPROVED:
        _refuse_rejection(session, study.id, aid, reason, f"it was approved already; {APPROVED}")
        return False
    if assignment.worker_id in withdrawn_workers(session, study.id):
        _refuse_rejection(session, study.id, aid, reason, WITHDREW)
        return False
    current = provider.submission(aid)
    if current is None:
        raise NotSubmittedYet(
            f"assignment {aid} is not submitted on the platform yet; cannot reject"
        )
    if current.state is SubmissionState.APPROVED:
        _settle(session, assignment, current.state, study.id)
        _refuse_rejection(
            session,
            study.id,
            aid,
            reason,
            f"the platform approved it already (auto-approval); {APPROVED}",
        )
        return False
    if current.state is SubmissionState.REJECTED:  # by a process that died before logging it?
        _settle(session, assignment, current.state, study.id)
        finish_abandoned(session, study.id, EventKind.REJECT_INTENT, EventKind.REJECTED, aid)
        return False
    if not begin_action(
        session, study.id, EventKind.REJECT_INTENT, EventKind.REJECTED, aid, reason
    ):
        return False
    with intent(session, study.id, EventKind.REJECT_INTENT, aid, reason=reason, feedback=feedback):
        provider.reject(aid, feedback)
        assignment.status = AssignmentStatus.REJECTED
        session.add(assignment)
        log(session, EventKind.REJECTED, study.id, aid, reason=reason, feedback=feedback)
    return True


@runtime_checkable
class ReturnAsker(Protocol):
    """A provider that can ask a participant to return a submission (Prolific), saying why
    (default: the study's checks; a withdrawal says so)."""

    def request_return(self, assignment_id: str, reason: str = ...) -> None: ...


def request_return(
    session: Session, provider: Provider, study: LaunchedStudy, assignment: Assignment, reason: str
) -> bool:
    """Ask the participant to return a submitted assignment (gentler than a rejection: the
    work is not used and their record is not marked); once per assignment (intent before the
    call, the request after). Review approves no assignment whose return was asked; when the
    participant returns it, sync frees its slot. False when there was nothing to do."""
    aid = assignment.platform_assignment_id
    if assignment.status is not AssignmentStatus.SUBMITTED:
        return False
    if not isinstance(provider, ReturnAsker):
        raise PlatformError(
            f"{provider.platform.label} cannot ask a participant to return work; change the "
            "spec's screening action request_return to reject, block or report"
        )
    current = provider.submission(aid)
    if current is None:
        raise NotSubmittedYet(f"assignment {aid} is not submitted on the platform yet")
    if current.state is not SubmissionState.SUBMITTED:
        _settle(session, assignment, current.state, study.id)
        return False
    if not begin_action(
        session, study.id, EventKind.RETURN_INTENT, EventKind.RETURN_REQUESTED, aid, reason
    ):
        return False
    with intent(session, study.id, EventKind.RETURN_INTENT, aid, reason=reason):
        provider.request_return(aid)
        log(session, EventKind.RETURN_REQUESTED, study.id, aid, reason=reason)
    return True


def return_requested(session: Session, study_id: int, aid: str) -> bool:
    """Whether review asked for the assignment's return (it is then never approved by review)."""
    return event_logged(session, EventKind.RETURN_INTENT, aid, study_id)


def _refuse_rejection(session: Session, study_id: int, aid: str, reason: str, why: str) -> None:
    """Log (once per assignment) that a rejection was not done, and ``why``."""
    if not event_logged(session, EventKind.REJECT_REFUSED, aid, study_id):
        log(session, EventKind.REJECT_REFUSED, study_id, aid, reason=reason, why=why)


_STATUS = {
    SubmissionState.SUBMITTED: AssignmentStatus.SUBMITTED,
    SubmissionState.APPROVED: AssignmentStatus.APPROVED,
    SubmissionState.REJECTED: AssignmentStatus.REJECTED,
    SubmissionState.RETURNED: AssignmentStatus.RETURNED,
    SubmissionState.TIMED_OUT: AssignmentStatus.ABANDONED,
}


def record_platform_status(
    session: Session,
    assignment: Assignment,
    state: SubmissionState,
    study_id: int,
    submitted_at: datetime | None = None,
) -> bool:
    """Give the assignment the store's status of the platform's ``state`` (and
    ``submitted_at``, when it had none), logged; False when it had that status already."""
    wanted = _STATUS[state]
    if assignment.status is wanted:
        return False
    record_event(
        session,
        EventKind.ASSIGNMENT_STATUS,
        study_id=study_id,
        subject=assignment.platform_assignment_id,
        payload={"from": assignment.status.value, "to": wanted.value, "source": "platform"},
    )
    assignment.status = wanted
    if assignment.submitted_at is None:
        assignment.submitted_at = submitted_at
    session.add(assignment)
    return True


def _settle(
    session: Session, assignment: Assignment, state: SubmissionState, study_id: int
) -> None:
    """Record the platform's decision when the store has not seen it yet."""
    if record_platform_status(session, assignment, state, study_id):
        session.commit()


def block_worker(
    session: Session, provider: Provider, study: LaunchedStudy, worker_id: str, reason: str
) -> bool:
    """Keep a worker from the rest of the study (without notifying them); nothing when they are
    blocked already (`unblock_worker` undoes it)."""
    if worker_blocked(session, study.id, worker_id):
        return False
    block_ref = study.platform.block_ref
    if block_ref is None:
        raise PlatformError(f"study {study.name!r} has no exclusion group yet; launch it first")
    excluded = None
    if isinstance(provider, KnowsExclusions):
        excluded = lambda: provider.excluded(block_ref, worker_id)  # noqa: E731
    if not begin_action(
        session,
        study.id,
        EventKind.BLOCK_INTENT,
        EventKind.BLOCKED,
        worker_id,
        reason,
        undone=EventKind.UNBLOCKED,
        done_already=excluded,
    ):
        return False
    with intent(session, study.id, EventKind.BLOCK_INTENT, worker_id, reason=reason):
        provider.exclude(block_ref, worker_id)
        _lock_places(session, provider, study.id)
        log(session, EventKind.BLOCKED, study.id, worker_id, reason=reason)
    return True


def _lock_places(session: Session, provider: Provider, study_id: int) -> None:
    """On a platform with places, the study's places lock for the transaction that records a
    block or unblock: the allocator reads blocks under it, so an arrival is decided wholly
    before the block is committed (and given its place) or after it (and refused). Taken
    before the transaction writes (on SQLite, a lock file)."""
    if isinstance(provider, PlacesProvider):
        lock_places(session, study_id)


@runtime_checkable
class KnowsExclusions(Protocol):
    """A provider that can say whether a worker is kept from a study's work now (MTurk: holds
    the exclusion qualification; Prolific: is in the study's blocked group), so that a block a
    process died in the middle of is not done twice."""

    def excluded(self, exclude_ref: str, worker_id: str) -> bool: ...


@runtime_checkable
class Reinstates(Protocol):
    """A provider that can let a blocked worker back into a study's work (MTurk: revoke the
    exclusion qualification; a study link: nothing on the platform, the allocator reads the
    log)."""

    def include(self, exclude_ref: str, worker_id: str) -> None: ...


def unblock_worker(
    session: Session, provider: Provider, study: LaunchedStudy, worker_id: str, reason: str
) -> bool:
    """Let a blocked worker take the study's work again (a person's decision); False when they
    are not blocked. `PlatformError` when the platform cannot undo a block."""
    if not worker_blocked(session, study.id, worker_id):
        return False
    if not isinstance(provider, Reinstates):
        raise PlatformError(
            f"{provider.platform.label} cannot unblock a worker from harness; do it on the "
            "platform's own site"
        )
    block_ref = study.platform.block_ref
    assert block_ref is not None  # a block was made through it
    log(session, EventKind.UNBLOCK_INTENT, study.id, worker_id, reason=reason)
    provider.include(block_ref, worker_id)
    _lock_places(session, provider, study.id)
    log(session, EventKind.UNBLOCKED, study.id, worker_id, reason=reason)
    return True


def add_raters(
    session: Session, provider: Provider, study: LaunchedStudy, hit: Hit, count: int, reason: str
) -> bool:
    """Add ``count`` assignments to a HIT, once per (HIT, reason).

    Refused (before any call) when the platform cannot grow the HIT that far (MTurk: from
    fewer than 10 assignments to 10 or more; `PlatformError`), and when it would take what the
    study has committed over its budget (logged as ``review.replace.refused``, once; False).
    """
    assert hit.platform_hit_id is not None
    token = action_token("raters", hit.platform_hit_id, reason)
    if event_logged(session, EventKind.REPLACED, token):
        return False
    new = hit.max_assignments + count
    refusal = provider.platform.raters_refusal(hit.platform_hit_id, hit.max_assignments, new)
    if refusal is not None:
        raise PlatformError(refusal)
    budget = study.study.budget
    if budget is not None:
        platform = provider.platform
        reward = money.hit_reward(
            session, study.id, study.platform.reward, hit.id
        )  # an arm may pay its own
        extra = money.hit_total(platform, reward, new) / new * count
        after = money.committed(session, platform, study.id, study.platform.reward) + extra
        if after > budget:
            c = study.study.currency
            if not event_logged(session, EventKind.REPLACE_REFUSED, token):
                log(
                    session,
                    EventKind.REPLACE_REFUSED,
                    study.id,
                    token,
                    hit=hit.platform_hit_id,
                    reason=reason,
                    why=f"committed would be {written(after, c, 2)}, over the budget "
                    f"{written(budget, c)}",
                )
            return False
    added = {"hit": hit.platform_hit_id, "count": count, "reason": reason}
    log(session, EventKind.REPLACE_INTENT, study.id, token, **added)
    hit.max_assignments = new
    session.add(hit)
    if isinstance(provider, PlacesProvider):  # one study: its places are every HIT's raters
        session.flush()
        provider.set_places(study_ref_of(hit.platform_hit_id), places_of(session, study.id))
    else:
        provider.add_raters(hit.platform_hit_id, count, token)
    log(session, EventKind.REPLACED, study.id, token, **added)
    return True


def submitted(session: Session, study_id: int) -> list[Assignment]:
    """The study's assignments submitted and not yet approved or rejected, oldest first."""
    return study_assignments(session, study_id, Assignment.status == AssignmentStatus.SUBMITTED)


def study_assignments(session: Session, study_id: int, condition: Any) -> list[Assignment]:
    """The study's assignments meeting ``condition``, oldest first."""
    return list(
        session.exec(
            select(Assignment)
            .join(Hit, col(Hit.id) == col(Assignment.hit_id))
            .where(Hit.study_id == study_id, condition)
            .order_by(col(Assignment.id))
        )
    )
