"""Settle quarantined submissions from what the store and the platform say: any number at
once, in the caller's transaction, with a handful of statements whatever their number.

A round of rechecks (`harness.platform.submissions.rechecks`) asks the platform about dozens
of quarantined submissions, and sync settles those of each assignment the platform reports;
a single one is a batch of one. For each claim (a pending row, the platform's answer about it,
its HIT):

- the store first: an assignment whose answers it holds already (sync read them from the
  platform, with the platform's worker) settles it, verified when they are the poster's, else
  refused;
- else the platform's answer: none, or unverified, leaves it pending; refused refuses it;
  verified stores the quarantined answers as the assignment's judgments, unless they no longer
  decode or differ from the platform's copy (someone with the worker's link posted first:
  what the worker completed on the platform is theirs, and sync stores it), which refuses it.

Settled once: every row is resolved by a conditional update (the database decides which
process settles a row); one another process settled first is left as it settled it (None),
and nothing is written for it. The rows resolved verified are resolved before their answers
are stored (`store_new_submissions`), so that of two processes at once one stores them. Of
several claims on one assignment, the first settles first and the others against what it
stored (sync puts the platform's own worker first). Any failure raises `StoreError` (e.g.
another process stored one of the assignments meanwhile): the caller rolls back, and the
claims stay pending for their next check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.answer import Answer
from harness.clock import utcnow
from harness.platform.contract import Submission
from harness.platform.verification import Verdict, Verification, compare
from harness.render.answers import AnswerFormatError, decode_fields
from harness.render.consent import consent_of
from harness.render.plan import HitPlan
from harness.store.events import EventKind, log_events
from harness.store.models import (
    Assignment,
    Hit,
    Judgment,
    QuarantinedSubmission,
    QuarantineState,
    Worker,
)
from harness.store.quarantine import resolved_payload
from harness.store.submissions import NewSubmission, store_new_submissions

Claim = tuple[int, Verification | None, Hit]
"""A pending quarantined submission's row id, what the platform said of it (None: not asked),
and its HIT."""


@dataclass(frozen=True)
class Settled:
    """What settling one quarantined submission did: its new state and, when its answers were
    stored now, the new assignment's store id (to screen it)."""

    state: QuarantineState
    assignment_pk: int | None = None


_Q = QuarantinedSubmission.__table__  # type: ignore[attr-defined]
_CLAIMED = sa.select(
    _Q.c.id,
    _Q.c.study_id,
    _Q.c.state,
    _Q.c.fields,
    _Q.c.platform_assignment_id,
    _Q.c.platform_worker_id,
    _Q.c.received_at,
).where(_Q.c.id.in_(sa.bindparam("ids", expanding=True)))
"""Built once: the claims' rows, read in the settling transaction as plain rows."""
_ANSWERED_BY = (
    sa.select(col(Assignment.platform_assignment_id), col(Worker.platform_worker_id))
    .select_from(Assignment)
    .outerjoin(Worker, col(Worker.id) == col(Assignment.worker_id))
    .where(
        col(Assignment.platform_assignment_id).in_(sa.bindparam("ids", expanding=True)),
        sa.exists().where(col(Judgment.assignment_id) == col(Assignment.id)),
    )
)
"""Built once: of the claims' assignments, those whose answers the store holds, and whose."""
STORED = "stored from the platform's record"
OTHERS = "the platform's record names another worker"
DIFFER = "the answers differ from those the worker completed on the platform"


def settle(session: Session, claims: Sequence[Claim]) -> dict[int, Settled | None]:
    """Settle ``claims`` in ``session``'s transaction; what each became (None: another
    process settled it first). `StoreError` when storing fails (the caller rolls back)."""
    out: dict[int, Settled | None] = {}
    waiting = list(claims)
    while waiting:  # one claim of each assignment at a time, the first first
        rows = {r.id: r for r in session.execute(_CLAIMED, {"ids": [c[0] for c in waiting]})}
        now: dict[str, Claim] = {}
        later = []
        for claim in waiting:
            row = rows.get(claim[0])
            if row is None or row.state is not QuarantineState.PENDING:
                out[claim[0]] = None
            elif row.platform_assignment_id in now:
                later.append(claim)
            else:
                now[row.platform_assignment_id] = claim
        out.update(_settle_distinct(session, rows, list(now.values())))
        waiting = later
    return out


def _settle_distinct(
    session: Session, rows: dict[int, sa.Row[Any]], claims: list[Claim]
) -> dict[int, Settled | None]:
    """Settle pending ``claims`` of distinct assignments (``rows``: theirs, read now)."""
    if not claims:
        return {}
    answered = dict(
        session.execute(
            _ANSWERED_BY, {"ids": sorted({rows[i].platform_assignment_id for i, _, _ in claims})}
        ).all()
    )
    out: dict[int, Settled | None] = {}
    resolving: dict[int, tuple[QuarantineState, str]] = {}
    storing: dict[int, tuple[Hit, list[Answer], datetime | None]] = {}
    for row_id, checked, hit in claims:
        row = rows[row_id]
        if row.platform_assignment_id in answered:
            mine = answered[row.platform_assignment_id] == row.platform_worker_id
            resolving[row_id] = (
                (QuarantineState.VERIFIED, STORED) if mine else (QuarantineState.REFUSED, OTHERS)
            )
        elif checked is None or checked.verdict is Verdict.UNVERIFIED:
            out[row_id] = Settled(QuarantineState.PENDING)
        elif checked.verdict is Verdict.REFUSED:
            resolving[row_id] = (QuarantineState.REFUSED, checked.reason)
        else:
            try:
                answers = decode_fields((k, v) for k, v in row.fields)
            except AnswerFormatError as exc:  # checked before quarantine; a changed codec
                resolving[row_id] = (QuarantineState.REFUSED, f"unreadable answers: {exc}")
                continue
            copy = checked.platform_answers
            if copy is not None and essence(copy) != essence(answers):
                resolving[row_id] = (QuarantineState.REFUSED, DIFFER)
                continue
            resolving[row_id] = (QuarantineState.VERIFIED, checked.reason)
            storing[row_id] = (hit, answers, checked.accepted_at)
    won = _resolve(session, rows, resolving)
    out.update({i: None for i in resolving.keys() - won})  # another process settled it first
    out.update({i: Settled(resolving[i][0]) for i in won - storing.keys()})
    stored = sorted(won & storing.keys())
    made = store_new_submissions(
        session,
        [
            NewSubmission(
                storing[i][0],
                rows[i].platform_assignment_id,
                rows[i].platform_worker_id,
                storing[i][1],
                rows[i].received_at,
                storing[i][2],
                consent_of(rows[i].fields),
            )
            for i in stored
        ],
    )
    for i in stored:
        out[i] = Settled(QuarantineState.VERIFIED, made[rows[i].platform_assignment_id])
    return out


def _resolve(
    session: Session,
    rows: dict[int, sa.Row[Any]],
    resolving: dict[int, tuple[QuarantineState, str]],
) -> set[int]:
    """Resolve the rows as ``resolving`` says unless another process resolved them first (one
    conditional update per state and reason), with their events; the row ids resolved here."""
    at = utcnow()
    won: set[int] = set()
    for state, reason in sorted({(s, r[:500]) for s, r in resolving.values()}):
        ids = sorted(i for i, (s, r) in resolving.items() if (s, r[:500]) == (state, reason))
        done = session.execute(
            sa.update(_Q)
            .where(_Q.c.id.in_(ids), _Q.c.state == QuarantineState.PENDING.name)
            .values(state=state.name, reason=reason, resolved_at=at, recheck_at=None)
            .returning(_Q.c.id)
        )
        won.update(int(i) for (i,) in done)
    log_events(
        session,
        EventKind.QUARANTINE_RESOLVED,
        [
            (
                rows[i].study_id,
                rows[i].platform_assignment_id,
                resolved_payload(rows[i].platform_worker_id, *resolving[i]),
            )
            for i in sorted(won)
        ],
    )
    return won


def settle_submitted(
    session: Session,
    hit: Hit,
    submission: Submission,
    label: str,
    read: Callable[[str, HitPlan], list[Answer]] | None = None,
) -> dict[int, Settled | None]:
    """Settle every pending quarantined submission of the assignment the platform reports in
    ``submission`` (what sync does for each submission it reads): the one by the platform's
    worker is stored, the others refused."""
    rows = session.exec(
        select(QuarantinedSubmission).where(
            QuarantinedSubmission.platform_assignment_id == submission.assignment_id,
            QuarantinedSubmission.state == QuarantineState.PENDING,
        )
    ).all()
    # the platform's own worker first, so the others are refused against a stored assignment
    rows = sorted(rows, key=lambda r: r.platform_worker_id != submission.worker_id)
    plan = HitPlan.from_showings(hit.index, hit.items)
    claims: list[Claim] = []
    for row in rows:
        assert row.id is not None
        own = hit if row.hit_id == hit.id else session.get(Hit, row.hit_id)  # the row's HIT
        assert own is not None
        checked = compare(
            submission, row.platform_worker_id, hit.platform_hit_id, label, read, plan
        )
        claims.append((row.id, checked, own))
    return settle(session, claims)


def essence(answers: Sequence[Answer]) -> list[tuple[str, int, float | None, bool]]:
    """What two copies of one submission must agree on (timings may be rounded apart)."""
    return sorted((a.item_key, a.position, a.value, a.skipped) for a in answers)
