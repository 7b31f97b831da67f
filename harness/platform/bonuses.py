"""A bonus: an amount typed as plain money, kept under a ceiling and within the budget, and
paid once per (assignment, amount, reason) however many tabs, clicks, processes or retries ask.

Paying once is the database's work, as for a block or a rejection
(`harness.store.action_claims`): `begin_action` looks at the bonus under the study's lock,
then `intent` records this process's intent, naming it as the holder, before any platform
call. A second request meanwhile finds the intent held (`ActionInProgress`: it is being paid)
or its result logged (paid already). The budget is checked under the same lock, counting
every other bonus paid or being paid (`money.bonuses_committed`), so two different bonuses
asked at once cannot take the study over its budget together.

A retry after a process was killed resumes the bonus: MTurk's ``SendBonus`` carries a token
made from the bonus, so MTurk pays it once; a study link only records it. A platform whose
paying is two steps and not idempotent (Prolific, `StagedBonuses`) has each step recorded
before the next: a bonus set up and not sent to pay is paid with the same set-up; one sent to
pay is never sent again: the platform is asked whether it shows, else it is logged uncertain
for a person to check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol, runtime_checkable

from sqlmodel import Session, col, select

from harness.errors import InputError
from harness.money import money as written
from harness.platform import money
from harness.platform.contract import Platform, Provider
from harness.platform.launch_plan import action_token
from harness.store.action_claims import begin_action, intent
from harness.store.events import EventKind, event_logged, record_event
from harness.store.models import Assignment, Event, Worker
from harness.store.studies import LaunchedStudy

PLAIN = re.compile(r"[0-9]{1,7}(\.[0-9]{1,2})?")
"""A bonus amount as typed: digits, and at most two after a point (no sign, exponent, comma
or currency symbol)."""

TIMES_REWARD = 10
"""The ceiling of one bonus when the spec sets none (``hit.max_bonus``): this many times the
assignment's reward."""

CENT = Decimal("0.01")


class BonusRefused(InputError):
    """A bonus cannot be paid as asked: its amount, its ceiling or the budget says why."""


def parse_amount(text: str) -> Decimal:
    """A bonus amount typed as plain money (``0.50``, ``2``), in cents."""
    typed = text.strip()
    if not PLAIN.fullmatch(typed):
        raise BonusRefused(
            f"bonus amount: expected an amount such as 0.50 (digits, at most two after the "
            f"point), got {text!r}"
        )
    amount = Decimal(typed).quantize(CENT)
    if amount <= 0:
        raise BonusRefused(f"bonus amount: expected more than 0, got {text!r}")
    return amount


@dataclass(frozen=True)
class BonusQuote:
    """What one bonus costs and where it leaves the study's money."""

    amount: Decimal
    cost: Decimal  # with the platform's fee
    ceiling: Decimal
    committed_after: Decimal  # the study's committed money once it is paid
    budget: Decimal | None
    currency: str = "USD"  # the study's, of every amount above

    @property
    def left_after(self) -> Decimal | None:
        return None if self.budget is None else self.budget - self.committed_after


def ceiling(session: Session, study: LaunchedStudy, assignment: Assignment) -> Decimal:
    """The most one bonus on ``assignment`` may pay: the spec's ``hit.max_bonus``, else
    `TIMES_REWARD` times what the assignment pays."""
    if study.study.max_bonus is not None:
        return Decimal(study.study.max_bonus)
    return (
        money.hit_reward(session, study.id, study.platform.reward, assignment.hit_id) * TIMES_REWARD
    ).quantize(CENT)


def quote(
    session: Session,
    platform: Platform,
    study: LaunchedStudy,
    assignment: Assignment,
    amount: Decimal,
    token: str | None = None,
) -> BonusQuote:
    """The bonus's cost and the study's money after it; `BonusRefused` over the ceiling or the
    budget (``token``: the bonus itself, not counted twice when it is being resumed)."""
    most = ceiling(session, study, assignment)
    c = study.study.currency
    if amount > most:
        raise BonusRefused(
            f"bonus amount: {written(amount, c)} is over the ceiling of {written(most, c)} per "
            f"bonus (the spec's hit.max_bonus, or {TIMES_REWARD} times the reward)"
        )
    cost = platform.bonus_cost(amount)
    after = (
        money.committed(session, platform, study.id, study.platform.reward, excluding=token) + cost
    )
    budget = study.study.budget
    if budget is not None and after > budget:
        raise BonusRefused(
            f"a {written(amount, c)} bonus costs {written(cost, c)} with the platform's fee: "
            f"committed would be {written(after, c, 2)}, over the budget {written(budget, c)}"
        )
    return BonusQuote(amount, cost, most, after, budget, c)


def bonus_token(assignment: Assignment, amount: Decimal, reason: str) -> str:
    """The bonus's identity (and MTurk's UniqueRequestToken): assignment, amount, reason."""
    return action_token("bonus", assignment.platform_assignment_id, amount.quantize(CENT), reason)


@runtime_checkable
class StagedBonuses(Protocol):
    """A platform whose bonuses are set up, then paid, and whose paying is not idempotent
    (Prolific): each step is recorded before the next, so a process killed anywhere cannot
    pay twice."""

    def create_bonus(self, assignment_id: str, amount: Decimal) -> str: ...

    def pay_bonus(self, bonus_id: str) -> None: ...

    def bonuses_shown(self, assignment_id: str, amount: Decimal) -> int: ...


def pay_bonus(
    session: Session,
    provider: Provider,
    study: LaunchedStudy,
    assignment: Assignment,
    amount: Decimal,
    reason: str,
) -> bool:
    """Pay the assignment's worker a bonus once per (assignment, amount, reason); False when
    it was paid already (or, on a staged platform, its payment is uncertain: logged).
    `BonusRefused` over the ceiling or the budget, `ActionInProgress` while another request
    pays it."""
    token = bonus_token(assignment, amount, reason)
    aid = assignment.platform_assignment_id
    worker = session.get(Worker, assignment.worker_id)
    assert worker is not None
    if not begin_action(
        session, study.id, EventKind.BONUS_INTENT, EventKind.BONUS_PAID, token, reason
    ):
        return False
    paid = {
        "assignment": aid,
        "worker": worker.platform_worker_id,
        "amount": str(amount),
        "cost": str(provider.platform.bonus_cost(amount)),
        "reason": reason,
    }
    if isinstance(provider, StagedBonuses):
        sent = _step(session, EventKind.BONUS_PAY_INTENT, token)
        if sent is not None:  # sent to pay by a process that stopped: never sent again
            return _resume_sent(session, provider, study, token, sent, paid)
    try:  # under the study's lock: the budget check and the intent are one step
        quote(session, provider.platform, study, assignment, amount, token)
    except BonusRefused:
        session.commit()  # releases the lock
        raise
    with intent(session, study.id, EventKind.BONUS_INTENT, token, **paid):
        if isinstance(provider, StagedBonuses):
            _pay_staged(session, provider, study, token, paid)
        else:
            provider.bonus(worker.platform_worker_id, aid, amount, reason, token)
        _log(session, EventKind.BONUS_PAID, study.id, token, **paid)
    return True


def _pay_staged(
    session: Session,
    provider: StagedBonuses,
    study: LaunchedStudy,
    token: str,
    paid: dict[str, str],
) -> None:
    """Set up the bonus (once: a set-up recorded earlier is used again), record the intent to
    pay, pay."""
    aid, amount = paid["assignment"], Decimal(paid["amount"])
    created = _step(session, EventKind.BONUS_CREATED, token)
    if created is None:
        bonus_id = provider.create_bonus(aid, amount)
        _log(session, EventKind.BONUS_CREATED, study.id, token, bonus=bonus_id, **paid)
    else:
        bonus_id = str(created.payload["bonus"])
    _log(session, EventKind.BONUS_PAY_INTENT, study.id, token, bonus=bonus_id, **paid)
    provider.pay_bonus(bonus_id)


def _resume_sent(
    session: Session,
    provider: StagedBonuses,
    study: LaunchedStudy,
    token: str,
    sent: Event,
    paid: dict[str, str],
) -> bool:
    """A bonus sent to pay whose result was never logged: paid when the platform shows one
    more bonus of its amount on the assignment than harness has logged paid (logged now, True),
    else logged uncertain once (False). The study's lock is held, and released here."""
    aid, amount = paid["assignment"], paid["amount"]
    logged = sum(
        1
        for e in session.exec(
            select(Event).where(Event.study_id == study.id, Event.kind == EventKind.BONUS_PAID)
        )
        if e.payload.get("assignment") == aid and e.payload.get("amount") == amount
    )
    if provider.bonuses_shown(aid, Decimal(amount)) > logged:
        _log(session, EventKind.BONUS_PAID, study.id, token, recovered=True, **paid)
        return True
    if not event_logged(session, EventKind.BONUS_UNCERTAIN, token):
        _log(
            session,
            EventKind.BONUS_UNCERTAIN,
            study.id,
            token,
            bonus=sent.payload.get("bonus"),
            why="a payment was sent and may still be on its way; harness never pays it "
            "again: check it on the platform",
            **paid,
        )
    session.commit()
    return False


def _step(session: Session, kind: EventKind, token: str) -> Event | None:
    return session.exec(
        select(Event).where(Event.kind == kind, Event.subject == token).order_by(col(Event.id))
    ).first()


def _log(session: Session, kind: EventKind, study_id: int, token: str, **payload: object) -> None:
    """Record a step and commit it now: it must be on disk before the call that follows."""
    record_event(session, kind, study_id=study_id, subject=token, payload=dict(payload))
    session.commit()
