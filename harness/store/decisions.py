"""Screening decisions in the store: added as screening makes them, claimed once before their
platform action, settled after it.

Screening (pure, `harness.screening.changes`) says which flags changed; this module keeps
them. A decision that acts (a raised flag whose action is block, reject or replace) starts
`DecisionState.PENDING`; the
review stage claims it with a conditional update, so that of several processes carrying out
decisions at once exactly one does each, then marks it applied (or puts it back when it must
wait, e.g. for a submission to reach the platform). A claim older than `CLAIM_TIMEOUT` belongs
to a process that died: the decision is pending again (every platform action is idempotent,
so finishing it twice does it once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.spec.model import Action
from harness.store.models import DecisionState, ScreeningDecision, utcnow

CLAIM_TIMEOUT = timedelta(minutes=10)
"""How long a claim protects a decision; longer than any platform action takes."""


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
) -> dict[tuple[int, str], bool]:
    """The flag of the latest stored decision per (worker, heuristic) of ``worker_pks``."""
    if not worker_pks:
        return {}
    query = (
        select(ScreeningDecision.worker_id, ScreeningDecision.heuristic, ScreeningDecision.flag)
        .where(ScreeningDecision.study_id == study_id)
        .where(col(ScreeningDecision.worker_id).in_(list(worker_pks)))
        .order_by(col(ScreeningDecision.id))
    )
    return {(w, h): f for w, h, f in session.exec(query).all()}


def latest_decisions(session: Session, study_id: int) -> list[ScreeningDecision]:
    """The latest decision of each (worker, heuristic) of the study, oldest first."""
    query = (
        select(ScreeningDecision)
        .where(ScreeningDecision.study_id == study_id)
        .order_by(col(ScreeningDecision.id))
    )
    latest = {(d.worker_id, d.heuristic): d for d in session.exec(query).all()}
    return sorted(latest.values(), key=lambda d: d.id or 0)


def pending_decisions(
    session: Session, study_id: int, now: datetime | None = None
) -> list[ScreeningDecision]:
    """Decisions to carry out, oldest first: raised flags with a block, reject or replace
    action, not applied, overruled or claimed (a claim older than `CLAIM_TIMEOUT` is
    abandoned). Only the latest decision of each (worker, heuristic) counts: a flag raised and
    since cleared is not pending."""
    stale = (now or utcnow()) - CLAIM_TIMEOUT
    return [
        d
        for d in latest_decisions(session, study_id)
        if acts(d.flag, d.action)
        and (
            d.state is DecisionState.PENDING
            or (d.state is DecisionState.CLAIMED and _older(d.claimed_at, stale))
        )
    ]


def claim(session: Session, decision: ScreeningDecision, now: datetime | None = None) -> bool:
    """Claim a pending (or abandoned) decision for this process, and commit the claim; False
    when another process holds it or it is settled. The database decides: a conditional
    update that only one of several concurrent claims can win."""
    at = now or utcnow()
    table = ScreeningDecision.__table__  # type: ignore[attr-defined]
    claimable = sa.or_(
        table.c.state == DecisionState.PENDING.name,
        sa.and_(
            table.c.state == DecisionState.CLAIMED.name,
            table.c.claimed_at < at - CLAIM_TIMEOUT,
        ),
    )
    result = session.execute(
        sa.update(table)
        .where(table.c.id == decision.id, claimable)
        .values(state=DecisionState.CLAIMED.name, claimed_at=at)
    )
    session.commit()
    won = result.rowcount == 1  # type: ignore[attr-defined]
    if won:
        session.refresh(decision)
    return won


def settle(session: Session, decision: ScreeningDecision, state: DecisionState) -> None:
    """Record how a claimed decision ended: ``APPLIED``, ``OVERRULED``, or ``PENDING`` again
    (it must wait, e.g. for the platform to have the submission). Joins the caller's
    transaction."""
    decision.state = state
    decision.claimed_at = None
    session.add(decision)


def _older(when: datetime | None, than: datetime) -> bool:
    if when is None:
        return True
    if when.tzinfo is None:  # SQLite returns naive times (stored as UTC)
        when = when.replace(tzinfo=than.tzinfo)
    return when < than
