"""The rechecks of quarantined submissions: the platform asked again until it vouches.

MTurk confirms an assignment only once the worker has completed it on MTurk, which a task
page does right after harness has its answers. So a submission usually arrives before the
platform can vouch for it: it is quarantined, and the platform is asked again a few times over
the next minute, on a schedule kept in the store (`harness.store.rechecks`; then `harness
sync` settles what is still pending). `Rechecks` carries the schedule out: it wakes when a
submission quarantined here is due, and a task server's (`watch`) also looks every `POLL`
seconds for any due recheck, so those of a process that stopped are done by the others. Rounds
are at least `GAP` seconds apart, so that under a burst one round covers several claims of a
HIT. The rechecks due are taken in the store first, together (`take_rechecks`), so exactly one
process does each; the platform is asked once per HIT about its due submissions
(`Verifier.asking_many`), with no transaction open while it answers.
A recheck that verifies a submission stores the answers as the assignment's judgments (a
round's claims settled together, in one transaction: `settling`); then the after-submission
hook (live screening) runs once per study with new assignments, as it would have after each.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from harness.clock import utcnow
from harness.platform.submissions.after_submission import (
    AfterSubmission,
    StudyRef,
    run_after_submission,
    study_id_of,
)
from harness.platform.submissions.settling import Claim, Settled, settle
from harness.platform.verification import Verification, Verifier
from harness.store.database import session_scope
from harness.store.models import (
    Hit,
    QuarantinedSubmission,
    QuarantineState,
    Study,
    StudyPlatform,
)
from harness.store.rechecks import RECHECK_DELAYS, due_rechecks, stop_rechecks, take_rechecks
from harness.store.studies import LaunchedStudy

LOG = logging.getLogger(__name__)
POLL = 2.0
"""Seconds between two looks for due rechecks in a task server (`Rechecks.watch`)."""
GAP = 1.0
"""Seconds at least between two rounds of rechecks in one process: the rechecks that fall due
meanwhile wait for the next round, so a round asks the platform about more of a HIT's claims
at once (one listing of the HIT instead of one GetAssignment each, `Verifier.asking_many`)."""


class Rechecks:
    """One background thread carrying out the store's rechecks of quarantined submissions; it
    starts with the first submission quarantined here, or with `watch`, and stops on
    `close`."""

    def __init__(
        self,
        engine: sa.Engine,
        verifier: Verifier,
        after_submission: AfterSubmission | None,
    ) -> None:
        self._engine = engine
        self._verifier = verifier
        self._after = after_submission
        self._wakes: list[float] = []  # when rechecks scheduled here are due (monotonic)
        self._poll: float | None = None  # seconds between looks for anyone's due rechecks
        self._looked = -float("inf")  # when it last looked (monotonic)
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._running = 0  # looks under way
        self._closed = False

    def schedule(self, row_id: int) -> None:
        """Quarantined submission ``row_id`` was just scheduled for its first recheck (in the
        store): wake when it is due."""
        self._wake(time.monotonic() + RECHECK_DELAYS[0])

    def watch(self, every: float = POLL) -> None:
        """From now on, look for due rechecks (any process's) every ``every`` seconds, the
        first time at once: what a task server does."""
        with self._cond:
            self._poll = every
            self._start()
            self._cond.notify()

    def idle(self) -> bool:
        """Whether no recheck scheduled here is waiting and none is running (one running may
        store answers, run the after-submission hook and schedule another)."""
        with self._cond:
            return not self._wakes and not self._running

    def close(self) -> None:
        """Stop rechecking (what is still due is done by another process, or `harness sync`)."""
        with self._cond:
            self._closed = True
            self._wakes.clear()
            self._cond.notify()
            thread = self._thread
        if thread is not None:  # a round under way finishes first (longer on a loaded machine)
            thread.join(timeout=60)

    def run_due(self) -> int:
        """Take and carry out every recheck due now, of any process; how many were done
        here."""
        with session_scope(self._engine) as session:
            due = due_rechecks(session)
            taken = take_rechecks(session, due) if due else {}
        if not taken:
            return 0
        settled = self.recheck_many(sorted(taken))
        for row_id, result in settled.items():
            next_at = taken[row_id].next_at
            if result is not None and result.state is QuarantineState.PENDING and next_at:
                self._wake(time.monotonic() + (next_at - utcnow()).total_seconds())
        return len(settled)

    def recheck(self, row_id: int) -> Settled | None:
        """Ask the platform about quarantined submission ``row_id`` now and settle it (None:
        it was settled already); when the platform's answer will not change, ask no more."""
        return self.recheck_many([row_id]).get(row_id)

    def recheck_many(self, row_ids: Sequence[int]) -> dict[int, Settled | None]:
        """`recheck` each of ``row_ids``: the platform asked once per HIT about its rows
        (`Verifier.asking_many`), with no transaction open meanwhile; the rows settled together
        in one transaction (`settle`); then the after-submission hook runs once per study that
        has new assignments. The rows settled (None: settled already); if settling fails, it is
        logged and the rows are left out (their next recheck is due)."""
        claims: list[Claim] = []
        studies: dict[int, StudyRef] = {}  # row id -> its study
        for hit_claims in self._claims(row_ids):
            answers = hit_claims.ask()  # the platform asked: no connection is held meanwhile
            for row_id, answer in zip(hit_claims.rows, answers, strict=True):
                claims.append((row_id, answer, hit_claims.hit))
                studies[row_id] = hit_claims.study
        settled = self._settle(claims)
        out: dict[int, Settled | None] = {i: None for i in row_ids if i not in studies}
        out.update(settled)
        new: dict[int, tuple[StudyRef, int]] = {}  # study id -> its newest assignment
        for row_id in row_ids:
            done = settled.get(row_id)
            if done is not None and done.assignment_pk is not None:
                new[study_id_of(studies[row_id])] = (studies[row_id], done.assignment_pk)
        if self._after is not None:
            for study, assignment_pk in new.values():
                run_after_submission(self._engine, self._after, study, assignment_pk)
        return out

    def _claims(self, row_ids: Sequence[int]) -> list[_HitClaims]:
        """The pending rows of ``row_ids`` by HIT, each HIT's question to the platform ready to
        ask (what the store knows is read now, in a transaction that ends here)."""
        with session_scope(self._engine) as session:
            rows = session.execute(_PENDING_CLAIMS, {"ids": list(row_ids)}).all()
            by_hit: dict[int, list[sa.Row[Any]]] = {}
            for row in rows:
                by_hit.setdefault(row.hit_id, []).append(row)
            studies: dict[int, tuple[Study, StudyRef]] = {}  # its row, and what the hook gets
            out = []
            for hit_id, group in by_hit.items():
                study_id = group[0].study_id
                if study_id not in studies:
                    found = session.get(Study, study_id)
                    assert found is not None
                    where = session.get(StudyPlatform, study_id)  # None: never launched
                    studies[study_id] = (found, LaunchedStudy(found, where) if where else study_id)
                found, ref = studies[study_id]
                hit = session.get(Hit, hit_id)
                assert hit is not None
                pairs = [(r.platform_assignment_id, r.platform_worker_id) for r in group]
                ask = self._verifier.asking_many(session, found, hit, pairs)
                out.append(_HitClaims(ref, hit, [r.id for r in group], ask))
        return out

    def _settle(self, claims: list[Claim]) -> dict[int, Settled | None]:
        """Settle ``claims`` in one transaction (`settle`); if that fails (e.g. a sync stored
        one of the assignments meanwhile, or one's answers no longer fit), each in a
        transaction of its own, a batch of one, so that one claim does not hold back the
        others (one that fails is logged and left out: its next recheck is due)."""
        try:
            return self._settle_in_one(claims)
        except Exception as exc:  # noqa: BLE001 - logged, and each claim settled alone
            LOG.info("settling %s rechecked claims together: %s; one by one", len(claims), exc)
        out: dict[int, Settled | None] = {}
        for claim in claims:
            try:
                out.update(self._settle_in_one([claim]))
            except Exception:  # a failed recheck must not stop the others; the next is due
                LOG.exception("recheck of quarantined submission %s failed", claim[0])
        return out

    def _settle_in_one(self, claims: list[Claim]) -> dict[int, Settled | None]:
        """`settle` ``claims`` in one transaction; a claim still pending whose answer will not
        change is asked about no more."""
        with session_scope(self._engine) as session:
            settled = settle(session, claims)
            for row_id, checked, _ in claims:
                done = settled.get(row_id)
                final = checked is not None and checked.final
                if done is not None and done.state is QuarantineState.PENDING and final:
                    stop_rechecks(session, row_id)
        return settled

    def _wake(self, when: float) -> None:
        with self._cond:
            if self._closed:
                return
            heapq.heappush(self._wakes, when)
            self._start()
            self._cond.notify()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="recheck", daemon=True)
            self._thread.start()

    def _next(self) -> float | None:
        """When the thread should look next (monotonic; None: when woken)."""
        times = [
            t
            for t in (
                self._wakes[0] if self._wakes else None,
                self._looked + self._poll if self._poll else None,
            )
            if t is not None
        ]
        return max(min(times), self._looked + GAP) if times else None

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    when = self._next()
                    if when is not None and when <= time.monotonic():
                        break
                    self._cond.wait(None if when is None else when - time.monotonic())
                if self._closed:
                    return
                now = time.monotonic()
                while self._wakes and self._wakes[0] <= now:
                    heapq.heappop(self._wakes)
                self._looked = now
                self._running += 1
            try:
                self.run_due()
            except Exception:  # the store unreachable for a moment: look again later
                LOG.exception("looking for due rechecks failed")
            finally:
                with self._cond:
                    self._running -= 1


_PENDING_CLAIMS = sa.select(
    col(QuarantinedSubmission.id),
    col(QuarantinedSubmission.study_id),
    col(QuarantinedSubmission.hit_id),
    col(QuarantinedSubmission.platform_assignment_id),
    col(QuarantinedSubmission.platform_worker_id),
).where(
    col(QuarantinedSubmission.id).in_(sa.bindparam("ids", expanding=True)),
    col(QuarantinedSubmission.state) == QuarantineState.PENDING,
)
"""Built once: which of a round's claims are still pending, and whose they are, as plain rows
(a claim's answers are read when it is settled, not to ask the platform)."""


@dataclass(frozen=True)
class _HitClaims:
    """A HIT's quarantined claims being rechecked (their row ids), and the question to the
    platform about them (`Verifier.asking_many`)."""

    study: StudyRef
    hit: Hit
    rows: list[int]
    ask: Callable[[], list[Verification]]
