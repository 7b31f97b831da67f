"""Screening decisions in the store: added as screening makes them, claimed once before their
platform action, settled after it.

Screening (pure, `harness.screening.changes`) says which flags changed; this module keeps
them. A decision that acts (a raised flag whose action is block, reject or replace) starts
`DecisionState.PENDING`; the
review stage claims it with a conditional update, so that of several processes carrying out
decisions at once exactly one does each, then marks it applied (or puts it back when it must
wait, e.g. for a submission to reach the platform). A claim names the process holding it
(`harness.store.owners`): a claim whose process died (killed in the middle of an action) is
taken over by the next process that looks, at once; one without a holder, after
`CLAIM_TIMEOUT`. The action itself reads the platform's state before doing again what a dead
process may have done (`harness.platform.actions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.spec.heuristics import DecisionKey, HeuristicKey, decision_key
from harness.spec.model import Action
from harness.store.models import DecisionState, ScreeningDecision
from harness.store.owners import CLAIM_TIMEOUT, abandoned, hold, new_claim, release

__all__ = [
    "CLAIM_TIMEOUT",
    "acts",
    "add_decisions",
    "claim",
    "pending_decisions",
    "settle",
    "studies_with_open_decisions",
]


def acts(flag: bool, action: Action) -> bool:
    """Whether a decision is carried out on the platform (a raised flag that does not report)."""
    return flag and action is not Action.REPORT


def add_decisions(
    session: Session, study_id: int, changes: Sequence[Mapping[str, Any]]
) -> list[ScreeningDecision]:
    """Store one decision per change (joining the caller's transaction), in order.

    A change has ``worker_pk``, ``assignment_pk`` (store ids), ``heuristic``, ``score``,
    ``evidence``, ``threshold``, ``flag``, ``action`` and ``details``
    (`harness.screening.changes.DecisionChange` as a dict). Its state follows from its flag
    and action: `DecisionState.PENDING` when it acts, else `DecisionState.RECORDED`.
    """
    decisions = [
        ScreeningDecision(
            study_id=study_id,
            worker_id=c["worker_pk"],
            assignment_id=c["assignment_pk"],
            heuristic=c["heuristic"],
            score=c["score"],
            evidence=c["evidence"],
            threshold=c["threshold"],
            flag=c["flag"],
            action=c["action"],
            state=DecisionState.PENDING if acts(c["flag"], c["action"]) else DecisionState.RECORDED,
            details=dict(c["details"]),
        )
        for c in changes
    ]
    session.add_all(decisions)
    session.flush()
    return decisions


def latest_flags(
    session: Session, study_id: int, worker_pks: Sequence[int]
) -> dict[DecisionKey, bool]:
    """The flag of the latest stored decision per `decision_key` of ``worker_pks``."""
    if not worker_pks:
        return {}
    query = (
        select(
            ScreeningDecision.worker_id,
            ScreeningDecision.heuristic,
            ScreeningDecision.assignment_id,
            ScreeningDecision.flag,
        )
        .where(ScreeningDecision.study_id == study_id)
        .where(col(ScreeningDecision.worker_id).in_(list(worker_pks)))
        .order_by(col(ScreeningDecision.id))
    )
    return {decision_key(w, HeuristicKey(h), a): f for w, h, a, f in session.exec(query).all()}


def latest_decisions(session: Session, study_id: int) -> list[ScreeningDecision]:
    """The latest decision of each `decision_key` of the study, oldest first."""
    query = (
        select(ScreeningDecision)
        .where(ScreeningDecision.study_id == study_id)
        .order_by(col(ScreeningDecision.id))
    )
    latest = {
        decision_key(d.worker_id, d.heuristic, d.assignment_id): d
        for d in session.exec(query).all()
    }
    return sorted(latest.values(), key=lambda d: d.id or 0)


def pending_decisions(
    session: Session, study_id: int, now: datetime | None = None
) -> list[ScreeningDecision]:
    """Decisions to carry out, oldest first: raised flags with a block, reject or replace
    action, not applied, overruled or claimed (a claim whose process is gone is abandoned,
    `harness.store.owners.abandoned`). Only the latest decision of each (worker, heuristic)
    counts (of each assignment, for a heuristic judged per assignment): a flag raised and since
    cleared is not pending."""
    at = now or utcnow()
    table = ScreeningDecision.__table__  # type: ignore[attr-defined]
    # the latest of each key from plain columns; whole decisions only for those still open
    # (a screening pass after each burst asks, and most of a study's decisions are settled)
    rows = session.execute(
        sa.select(
            table.c.id,
            table.c.worker_id,
            table.c.heuristic,
            table.c.assignment_id,
            table.c.flag,
            table.c.action,
            table.c.state,
        )
        .where(table.c.study_id == study_id)
        .order_by(table.c.id)
    ).all()
    latest = {decision_key(r.worker_id, r.heuristic, r.assignment_id): r for r in rows}
    open_states = (DecisionState.PENDING, DecisionState.CLAIMED)
    wanted = sorted(
        r.id for r in latest.values() if r.state in open_states and acts(r.flag, r.action)
    )
    if not wanted:
        return []
    found = session.exec(
        select(ScreeningDecision)
        .where(col(ScreeningDecision.id).in_(wanted))
        .order_by(col(ScreeningDecision.id))
    ).all()
    return [
        d
        for d in found
        if d.state is DecisionState.PENDING
        or (d.state is DecisionState.CLAIMED and _abandoned(session, d, at))
    ]


def studies_with_open_decisions(
    session: Session, pending_since: datetime | None = None
) -> list[int]:
    """The studies (store ids, ascending) with a decision that acts and is not settled:
    claimed (by a process that may be gone), or pending (made since ``pending_since``, when
    given: one pending for longer waits for something, e.g. a submission the platform does not
    have, and is retried by the next submission's screening and by sync). A cheap first look:
    which of them are really to carry out is `pending_decisions`'s to say."""
    table = ScreeningDecision.__table__  # type: ignore[attr-defined]
    pending = table.c.state == DecisionState.PENDING.name
    if pending_since is not None:
        pending = sa.and_(pending, table.c.created_at >= pending_since)
    query = (
        sa.select(table.c.study_id)
        .where(
            sa.or_(table.c.state == DecisionState.CLAIMED.name, pending),
            table.c.flag.is_(True),
            table.c.action != Action.REPORT.name,
        )
        .distinct()
        .order_by(table.c.study_id)
    )
    return [int(s) for s in session.scalars(query)]


def claim(session: Session, decision: ScreeningDecision, now: datetime | None = None) -> bool:
    """Claim a pending (or abandoned) decision for this process, and commit the claim; False
    when another process holds it or it is settled. The database decides: a conditional
    update that only one of several concurrent claims can win (taking over an abandoned claim,
    the update names the claim it replaces). This process holds the won claim
    (`harness.store.owners.hold`) until the caller, the decision settled, releases it
    (`harness.store.owners.release` of the ``claimed_by`` it won)."""
    at = now or utcnow()
    table = ScreeningDecision.__table__  # type: ignore[attr-defined]
    claimable = sa.or_(
        table.c.state == DecisionState.PENDING.name,
        sa.and_(
            table.c.state == DecisionState.CLAIMED.name,
            table.c.claimed_at < at - CLAIM_TIMEOUT,
        ),
    )
    if decision.state is DecisionState.CLAIMED and _abandoned(session, decision, at):
        taken = decision.claimed_by
        claimable = sa.or_(
            claimable,
            sa.and_(
                table.c.state == DecisionState.CLAIMED.name,
                table.c.claimed_by.is_(None) if taken is None else table.c.claimed_by == taken,
            ),
        )
    mine = new_claim()
    hold(session.get_bind().engine, mine)  # held before anyone can see it
    try:
        result = session.execute(
            sa.update(table)
            .where(table.c.id == decision.id, claimable)
            .values(state=DecisionState.CLAIMED.name, claimed_at=at, claimed_by=mine)
        )
        session.commit()
    except BaseException:
        release(mine)
        raise
    won: bool = result.rowcount == 1  # type: ignore[attr-defined]
    if won:
        session.refresh(decision)
    else:
        release(mine)
    return won


def settle(session: Session, decision: ScreeningDecision, state: DecisionState) -> None:
    """Record how a claimed decision ended: ``APPLIED``, ``OVERRULED``, or ``PENDING`` again
    (it must wait, e.g. for the platform to have the submission). Joins the caller's
    transaction."""
    decision.state = state
    decision.claimed_at = None
    decision.claimed_by = None
    session.add(decision)


def _abandoned(session: Session, decision: ScreeningDecision, now: datetime) -> bool:
    if decision.claimed_at is None:
        return True
    return abandoned(session, decision.claimed_by, decision.claimed_at, now)
