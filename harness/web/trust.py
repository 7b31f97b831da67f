"""What the task server needs to decide whether a submission counts: the store's page keys,
the platform verifier, and the rechecks of quarantined submissions.

MTurk confirms an assignment only once the worker has completed it on MTurk, which a task
page does right after harness has its answers. So a submission usually arrives before the
platform can vouch for it: it is quarantined, and the platform is asked again a few times over
the next minute, on a schedule kept in the store (`harness.store.rechecks`; then `harness
sync` settles what is still pending). `Rechecks` carries the schedule out: it wakes when a
submission quarantined here is due, and a task server's (`watch`) also looks every `POLL`
seconds for any due recheck, so those of a process that stopped are done by the others. Each
recheck is taken in the store first, so exactly one process does it. A recheck that verifies a
submission stores the answers as the assignment's judgments and runs the after-submission
hook (live screening) as a verified submission at once would have.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from dataclasses import dataclass

import sqlalchemy as sa
from flask import current_app

from harness.platform.after_submission import AfterSubmission, run_after_submission
from harness.platform.verification import Settled, Verifier, settle
from harness.store.database import session_scope
from harness.store.models import Hit, QuarantinedSubmission, QuarantineState, Study, utcnow
from harness.store.rechecks import RECHECK_DELAYS, due_rechecks, stop_rechecks, take_recheck
from harness.web.tokens import PageKeys

LOG = logging.getLogger(__name__)
POLL = 2.0
"""Seconds between two looks for due rechecks in a task server (`Rechecks.watch`)."""


class Rechecks:
    """One background thread carrying out the store's rechecks of quarantined submissions; it
    starts with the first submission quarantined here, or with `watch`, and stops on
    `close`."""

    def __init__(
        self, engine: sa.Engine, verifier: Verifier, after_submission: AfterSubmission | None
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

    def schedule(self, row_id: int, attempt: int = 0) -> None:
        """Quarantined submission ``row_id`` was just scheduled for its ``attempt``-th recheck
        (in the store): wake when it is due."""
        if attempt < len(RECHECK_DELAYS):
            self._wake(time.monotonic() + RECHECK_DELAYS[attempt])

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
        if thread is not None:
            thread.join(timeout=10)

    def run_due(self) -> int:
        """Take and carry out every recheck due now, of any process; how many were done
        here."""
        with session_scope(self._engine) as session:
            due = due_rechecks(session)
        done = 0
        for row_id, asked in due:
            with session_scope(self._engine) as session:
                taken = take_recheck(session, row_id, asked)
            if taken is None:  # another process took it
                continue
            try:
                settled = self.recheck(row_id)
            except Exception:  # a failed recheck must not stop the others; the next is due
                LOG.exception("recheck of quarantined submission %s failed", row_id)
                continue
            done += 1
            pending = settled is not None and settled.state is QuarantineState.PENDING
            if pending and taken.next_at is not None:
                self._wake(time.monotonic() + (taken.next_at - utcnow()).total_seconds())
        return done

    def recheck(self, row_id: int) -> Settled | None:
        """Ask the platform about quarantined submission ``row_id`` now and settle it (None:
        it was settled already); when the platform's answer will not change, ask no more."""
        with session_scope(self._engine) as session:
            row = session.get(QuarantinedSubmission, row_id)
            if row is None or row.state is not QuarantineState.PENDING:
                return None
            study = session.get(Study, row.study_id)
            hit = session.get(Hit, row.hit_id)
            assert study is not None and hit is not None
            checked = self._verifier.check(session, study, hit, row.platform_assignment_id,
                                           row.platform_worker_id)  # fmt: skip
            settled = settle(session, row, checked)
            if settled.state is QuarantineState.PENDING and checked.final:
                stop_rechecks(session, row_id)
            study_id = study.id
        if settled.assignment_pk is not None and self._after is not None:
            assert study_id is not None
            run_after_submission(self._engine, self._after, study_id, settled.assignment_pk)
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
        times = [t for t in (self._wakes[0] if self._wakes else None,
                             self._looked + self._poll if self._poll else None)
                 if t is not None]  # fmt: skip
        return min(times) if times else None

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


@dataclass
class Trust:
    """The task server's keys, verifier and rechecks (one per app)."""

    keys: PageKeys
    verifier: Verifier
    rechecks: Rechecks

    def close(self) -> None:
        self.rechecks.close()


def trust() -> Trust:
    found = current_app.extensions["harness.trust"]
    assert isinstance(found, Trust)
    return found
