"""What the task server needs to decide whether a submission counts: the store's page keys,
the platform verifier, and the rechecks of quarantined submissions.

MTurk confirms an assignment only once the worker has completed it on MTurk, which a task
page does right after harness has its answers. So a submission usually arrives before the
platform can vouch for it: it is quarantined, and `Rechecks` asks the platform again a few
times over the next minute (then `harness sync` settles what is still pending). A recheck that
verifies it stores the answers as the assignment's judgments and runs the after-submission
hook (live screening) as a verified submission at once would have.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from dataclasses import dataclass

import sqlalchemy as sa
from flask import current_app

from harness.platform.after_submission import AfterSubmission, run_after_submission
from harness.platform.verification import Settled, Verifier, settle
from harness.store.database import session_scope
from harness.store.models import Hit, QuarantinedSubmission, QuarantineState, Study
from harness.web.tokens import PageKeys

LOG = logging.getLogger(__name__)
RECHECK_DELAYS = (0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 15.0, 15.0)
"""Seconds before each recheck of a quarantined submission (about a minute in all; dense at
first, when the worker's browser is completing the assignment on MTurk)."""


class Rechecks:
    """One background thread asking the platform again about quarantined submissions; it
    starts with the first one and stops on `close` (bounded: `RECHECK_DELAYS` per row)."""

    def __init__(
        self,
        engine: sa.Engine,
        verifier: Verifier,
        after_submission: AfterSubmission | None,
        delays: tuple[float, ...] = RECHECK_DELAYS,
    ) -> None:
        self._engine = engine
        self._verifier = verifier
        self._after = after_submission
        self._delays = delays
        self._due: list[tuple[float, int, int, int]] = []  # (when, order, row id, attempt)
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._running = 0  # rechecks taken off the queue and not finished yet
        self._closed = False

    def schedule(self, row_id: int, attempt: int = 0) -> None:
        """Recheck quarantined submission ``row_id`` after its ``attempt``-th delay."""
        if attempt >= len(self._delays):
            return
        with self._cond:
            if self._closed:
                return
            when = time.monotonic() + self._delays[attempt]
            heapq.heappush(self._due, (when, next(self._order), row_id, attempt))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="recheck", daemon=True)
                self._thread.start()
            self._cond.notify()

    def idle(self) -> bool:
        """Whether no recheck is waiting or running (one running may store answers, run the
        after-submission hook and schedule another)."""
        with self._cond:
            return not self._due and not self._running

    def close(self) -> None:
        """Stop rechecking (what is still pending waits for `harness sync`)."""
        with self._cond:
            self._closed = True
            self._due.clear()
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (
                    not self._due or self._due[0][0] > time.monotonic()
                ):
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    self._cond.wait(wait)
                if self._closed:
                    return
                _, _, row_id, attempt = heapq.heappop(self._due)
                self._running += 1
            try:
                self.recheck(row_id, attempt)
            except Exception:  # a failed recheck must not stop the others; sync settles it
                LOG.exception("recheck of quarantined submission %s failed", row_id)
            finally:
                with self._cond:
                    self._running -= 1

    def recheck(self, row_id: int, attempt: int = 0) -> Settled | None:
        """Ask the platform about quarantined submission ``row_id`` now; schedule the next
        recheck when it is still pending and asking again may help."""
        final = True
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
            final = checked.final
            study_id = study.id
        if settled.assignment_pk is not None and self._after is not None:
            assert study_id is not None
            run_after_submission(self._engine, self._after, study_id, settled.assignment_pk)
        if settled.state is QuarantineState.PENDING and not final:
            self.schedule(row_id, attempt + 1)
        return settled


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
