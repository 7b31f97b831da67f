"""Settle a round's verified claims together: one transaction and a handful of statements.

A round of rechecks (`harness.web.trust.Rechecks`) asks the platform about dozens of
quarantined submissions; most come back verified, for assignments the store has never seen.
Settled one at a time (`harness.platform.verification.settle`), each costs a transaction and
many round trips to the database, and under a burst every round trip of the rechecks'
thread also waits for the interpreter's lock while the request threads run: the rounds fell
behind the submissions. `settle_verified` takes those plain claims together, with what
`settle` would do for each:

- the rows read again (one statement): one settled meanwhile is left as it is (None);
- a claim whose assignment the store holds already, whose answers no longer decode, or whose
  platform copy differs is not taken: the caller settles it one by one, as before;
- the rest resolved ``verified`` by one conditional update (the database decides, as
  `resolve` does, which process settles a row), their events logged, and their answers stored
  (`store_new_submissions`).

Any failure raises, and the caller rolls the transaction back and settles every claim one by
one, so a batch never settles anything differently from the single path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.answer import Answer
from harness.clock import utcnow
from harness.platform.verification import Settled, Verdict, Verification, essence
from harness.render.answers import AnswerFormatError, decode_fields
from harness.store.events import EventKind, log_events
from harness.store.many_submissions import NewSubmission, store_new_submissions
from harness.store.models import Assignment, Hit, QuarantinedSubmission, QuarantineState
from harness.store.quarantine import resolved_payload

FEWEST = 2
"""Fewer verified claims than this in a round are settled one by one (nothing to gain)."""


_Q = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
_CLAIMED = sa.select(
    _Q.c.id, _Q.c.study_id, _Q.c.state, _Q.c.fields, _Q.c.platform_assignment_id,
    _Q.c.platform_worker_id, _Q.c.received_at,
).where(_Q.c.id.in_(sa.bindparam("ids", expanding=True)))  # fmt: skip
"""Built once: the claims' rows, read again in the settling transaction as plain rows (no
objects to build: the batch only reads them)."""


@dataclass(frozen=True)
class _Taken:
    row: sa.Row[Any]
    hit: Hit
    answers: list[Answer]
    reason: str


def settle_verified(
    session: Session, claims: Mapping[int, tuple[Verification, Hit]]
) -> dict[int, Settled | None]:
    """Settle the verified claims of ``claims`` (row id -> the platform's answer, the row's
    HIT) in ``session``'s transaction; what each became (None: settled meanwhile). Claims
    left out of the answer are the caller's to settle one by one."""
    verified = {i: c for i, c in claims.items() if c[0].verdict is Verdict.VERIFIED}
    if len(verified) < FEWEST:
        return {}
    rows = session.execute(_CLAIMED, {"ids": sorted(verified)}).all()
    out: dict[int, Settled | None] = {}
    taken: dict[int, _Taken] = {}
    for row in rows:
        assert row.id is not None
        if row.state is not QuarantineState.PENDING:
            out[row.id] = None
            continue
        checked, hit = verified[row.id]
        try:
            answers = decode_fields((k, v) for k, v in row.fields)
        except AnswerFormatError:
            continue  # refused one by one, with the reason
        copy = checked.platform_answers
        if copy is not None and essence(copy) != essence(answers):
            continue  # refused one by one
        taken[row.id] = _Taken(row, hit, answers, checked.reason[:500])
    if taken:
        stored = set(session.exec(
            select(Assignment.platform_assignment_id).where(col(
                Assignment.platform_assignment_id).in_(
                    sorted({t.row.platform_assignment_id for t in taken.values()})))
        ))  # fmt: skip
        taken = {i: t for i, t in taken.items() if t.row.platform_assignment_id not in stored}
    won = _resolve_verified(session, taken)
    out.update({i: None for i in taken.keys() - won})  # another process settled it first
    made = store_new_submissions(session, [
        NewSubmission(taken[i].hit, taken[i].row.platform_assignment_id,
                      taken[i].row.platform_worker_id, taken[i].answers,
                      taken[i].row.received_at)
        for i in sorted(won)
    ])  # fmt: skip
    for i in won:
        out[i] = Settled(QuarantineState.VERIFIED, made[taken[i].row.platform_assignment_id])
    return out


def _resolve_verified(session: Session, taken: Mapping[int, _Taken]) -> set[int]:
    """Resolve the rows ``verified`` unless another process resolved them first (one
    conditional update per reason), with their events; the row ids resolved here."""
    at = utcnow()
    won: set[int] = set()
    for reason in sorted({t.reason for t in taken.values()}):
        ids = sorted(i for i, t in taken.items() if t.reason == reason)
        done = session.execute(
            sa.update(_Q)
            .where(_Q.c.id.in_(ids), _Q.c.state == QuarantineState.PENDING.name)
            .values(
                state=QuarantineState.VERIFIED.name, reason=reason, resolved_at=at, recheck_at=None
            )  # fmt: skip
            .returning(_Q.c.id)
        )
        won.update(int(i) for (i,) in done)
    log_events(session, EventKind.QUARANTINE_RESOLVED, [
        (taken[i].row.study_id, taken[i].row.platform_assignment_id,
         resolved_payload(taken[i].row.platform_worker_id, QuarantineState.VERIFIED,
                          taken[i].reason))
        for i in sorted(won)
    ])  # fmt: skip
    return won
