"""Carry out screening's decisions on a study's platform (block, reject with feedback, replace,
ask for a return), for the after-submission hook, sync, review and the dashboard's buttons.

A participant who withdrew from the study is paid for what they submitted and never penalised:
screening's block, reject and return decisions about them are overruled (logged, with the
reason). Their judgments are out of every analysis already (`harness.store.withdrawals`).

Each pending decision is claimed in the database before its platform action
(`harness.store.decisions.claim`), so of several processes carrying out decisions at once
(task-server workers, a sync, `harness review`) exactly one does each. A claim whose process
died is taken over by the next process that looks, and the action itself reads the platform's
state before doing again what the dead process may have done (`harness.platform.actions`).
"""

from __future__ import annotations

from sqlmodel import Session

from harness.platform.actions import (
    ActionKind,
    NotSubmittedYet,
    ReviewAction,
    add_raters,
    block_worker,
    log,
    reject,
    request_return,
    return_requested,
    study_assignments,
)
from harness.platform.contract import Provider
from harness.spec.heuristics import HeuristicKey
from harness.spec.model import Action
from harness.store.action_claims import ActionInProgress
from harness.store.decisions import claim, pending_decisions, settle
from harness.store.events import EventKind
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    DecisionState,
    Hit,
    ScreeningDecision,
    Worker,
)
from harness.store.owners import release
from harness.store.studies import LaunchedStudy
from harness.store.withdrawals import withdrawn_workers

FEEDBACK = {
    HeuristicKey.QUICK: (
        "This HIT was answered faster than the items can be read (a median of under "
        "{threshold:g} seconds per item), so we cannot use the answers."
    ),
    HeuristicKey.GOLD_FAILURE: (
        "Many answers in this HIT were far from the agreed answers of the check items included "
        "in it, so we cannot use the answers."
    ),
    HeuristicKey.CALIBRATION_FAILURE: (
        "This HIT includes check items (a word paired with itself, and items shown twice). "
        "Your answers to them did not match, so we cannot use the answers."
    ),
}
FEEDBACK_DEFAULT = "Your answers in this HIT did not pass the study's quality checks ({name})."
FEEDBACK_TAIL = (
    " If you think this is a mistake, please contact us through {platform} and we will look again."
)
PENALTIES = frozenset({Action.BLOCK, Action.REJECT, Action.REQUEST_RETURN})
"""The decisions never carried out on a participant who withdrew."""
WITHDREW = "the participant withdrew from the study: withdrawing costs them nothing"


def rejection_feedback(
    heuristic: HeuristicKey, threshold: float | None = None, platform: str = "MTurk"
) -> str:
    """Feedback a worker can understand: what was checked and what to do if it is wrong."""
    template = FEEDBACK.get(heuristic)
    if template is None:
        text = FEEDBACK_DEFAULT.format(name=heuristic.replace("_", " "))
    else:
        text = template.format(threshold=threshold if threshold is not None else 2)
    return text + FEEDBACK_TAIL.format(platform=platform)


def planned_decisions(session: Session, study: LaunchedStudy) -> list[ReviewAction]:
    """What carrying out the pending decisions would do, without doing it (a dry run's plan)."""
    planned: list[ReviewAction] = []
    for d in by_precedence(pending_decisions(session, study.id)):
        acted = {a.subject for a in planned if a.kind in (ActionKind.REJECT, ActionKind.RETURN)}
        if not _spared(session, study, d):
            done = _carry_out(session, None, study, d, _reason(d))
            planned += [a for a in done if a.subject not in acted]
    return planned


def apply_pending_decisions(
    session: Session, provider: Provider, study: LaunchedStudy
) -> list[ReviewAction]:
    """Carry out the screening decisions not applied yet (block, reject, replace, ask for a
    return), each claimed
    first and marked applied after.

    A rejection of an assignment not yet submitted on the platform puts its decision back to
    pending for the next call (a later sync or review); the other decisions go ahead. A
    decision another process has claimed is left to it.
    """
    done: list[ReviewAction] = []
    for decision in by_precedence(pending_decisions(session, study.id)):
        done += apply_decision(session, provider, study, decision)
    return done


PRECEDENCE = (Action.BLOCK, Action.REJECT, Action.REQUEST_RETURN, Action.REPLACE, Action.REPORT)
"""The order decisions pending together are carried out in. A submission gets one action of
reject and request_return: the first carried out stands (a rejected submission is not asked
to be returned, one whose return was asked is not rejected), so when both are decided in the
same pass, reject, the stronger policy the spec chose, is the one. Block acts on the worker,
not on a submission, and goes with either."""


def by_precedence(decisions: list[ScreeningDecision]) -> list[ScreeningDecision]:
    """``decisions`` in `PRECEDENCE` order (stable: otherwise as they were decided)."""
    return sorted(decisions, key=lambda d: PRECEDENCE.index(d.action))


def apply_decision(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    decision: ScreeningDecision,
    by: str | None = None,
) -> list[ReviewAction]:
    """Claim one pending decision, carry it out and mark it applied (what was done; nothing
    when another process holds it, or it must wait for the platform and is pending again).
    ``by``: the person who asked (``dashboard``), named first in the actions' reasons. A
    penalty for a participant who withdrew is overruled instead."""
    if _spared(session, study, decision):
        overrule_decision(session, study, decision, WITHDREW)
        return []
    if not claim(session, decision):
        return []
    held = decision.claimed_by
    assert held is not None
    try:
        return _apply_claimed(session, provider, study, decision, by)
    finally:
        release(held)


def _apply_claimed(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    decision: ScreeningDecision,
    by: str | None = None,
) -> list[ReviewAction]:
    reason = _reason(decision) if by is None else f"{by}: carried out {_reason(decision)}"
    try:
        done = _carry_out(session, provider, study, decision, reason)
    except (NotSubmittedYet, ActionInProgress):  # to do later (next hook, sync, review)
        settle(session, decision, DecisionState.PENDING)
        session.commit()
        return []
    except BaseException:
        session.rollback()
        settle(session, decision, DecisionState.PENDING)
        session.commit()
        raise
    _settle_logged(session, study, decision, DecisionState.APPLIED, EventKind.SCREENING_APPLIED)
    return done


def _settle_logged(
    session: Session,
    study: LaunchedStudy,
    decision: ScreeningDecision,
    state: DecisionState,
    kind: EventKind,
    **extra: str,
) -> None:
    """Give the claimed decision its final ``state`` and log it as ``kind``."""
    worker = session.get(Worker, decision.worker_id)
    assert worker is not None
    settle(session, decision, state)
    log(
        session,
        kind,
        study.id,
        worker.platform_worker_id,
        decision=decision.id,
        action=decision.action.value,
        heuristic=decision.heuristic,
        **extra,
    )


def _spared(session: Session, study: LaunchedStudy, decision: ScreeningDecision) -> bool:
    """Whether the decision penalises a participant who withdrew from the study."""
    return decision.action in PENALTIES and decision.worker_id in withdrawn_workers(
        session, study.id
    )


def overrule_decision(
    session: Session, study: LaunchedStudy, decision: ScreeningDecision, reason: str
) -> bool:
    """A person overrules a pending screening decision: it is never carried out (logged with
    the reason); False when it was no longer pending (applied, or held by another process)."""
    if not claim(session, decision):
        return False
    held = decision.claimed_by
    assert held is not None
    try:
        state, kind = DecisionState.OVERRULED, EventKind.SCREENING_OVERRULED
        _settle_logged(session, study, decision, state, kind, reason=reason)
    finally:
        release(held)
    return True


def _carry_out(
    session: Session,
    provider: Provider | None,
    study: LaunchedStudy,
    decision: ScreeningDecision,
    reason: str,
) -> list[ReviewAction]:
    """Carry out a decision on ``provider``'s platform: the actions done. Without a provider,
    nothing is done: the actions it would take (the plan a dry run prints)."""
    worker = session.get(Worker, decision.worker_id)
    assert worker is not None
    if decision.action is Action.BLOCK:
        wid = worker.platform_worker_id
        if provider is None or block_worker(session, provider, study, wid, reason):
            return [ReviewAction(ActionKind.BLOCK, wid, reason)]
        return []
    done = []
    for assignment in _targets(session, study, decision):
        aid = assignment.platform_assignment_id
        submitted_now = assignment.status is AssignmentStatus.SUBMITTED
        if decision.action is Action.REJECT:
            if return_requested(session, study.id, aid):
                continue  # one action per submission: its return was asked first
            if provider is None:
                rejected = submitted_now
            else:
                label = provider.platform.label
                feedback = rejection_feedback(decision.heuristic, decision.threshold, label)
                rejected = reject(session, provider, study, assignment, feedback, reason)
            if rejected:
                done.append(ReviewAction(ActionKind.REJECT, aid, reason))
        elif decision.action is Action.REQUEST_RETURN:
            if provider is None:
                asked = submitted_now
            else:
                asked = request_return(session, provider, study, assignment, reason)
            if asked:
                done.append(ReviewAction(ActionKind.RETURN, aid, reason))
        elif decision.action is Action.REPLACE:
            hit = session.get(Hit, assignment.hit_id)
            assert hit is not None
            why = f"{reason}: replaces {aid}"
            if provider is None or add_raters(session, provider, study, hit, 1, why):
                done.append(ReviewAction(ActionKind.REPLACE, str(hit.platform_hit_id), why))
    return done


def _targets(
    session: Session, study: LaunchedStudy, decision: ScreeningDecision
) -> list[Assignment]:
    """The assignments a decision is about: its own, else the worker's in this study."""
    if decision.assignment_id is not None:
        found = session.get(Assignment, decision.assignment_id)
        return [found] if found is not None else []
    return study_assignments(session, study.id, Assignment.worker_id == decision.worker_id)


def _reason(decision: ScreeningDecision) -> str:
    score = "" if decision.score is None else f" (score {decision.score:.3g})"
    return f"screening {decision.heuristic}{score}"
