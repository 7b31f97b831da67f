"""Live screening off the request path: the worker is answered as soon as the answers are
stored, and screening runs in a thread of the same process a moment later.

Screening a study takes its database lock and scores every stored assignment not screened yet
(`harness.screening.live.screen_pending`), so one run serves every submission that arrived
meanwhile: `BackgroundHook` keeps one run per study at a time, at most one per `INTERVAL`, and
folds the submissions that arrive in between into the next. Nothing is lost if the process
dies first: the assignments are stored and not marked screened, so the next run anywhere
(another submission, `harness sync`, `harness review`, a task server's start or `Sweep`)
screens them.
"""

from __future__ import annotations

import logging
import math
import threading
import time

import sqlalchemy as sa

from harness.platform.submissions.after_submission import (
    AfterSubmission,
    StudyRef,
    catch_up,
    run_after_submission,
    study_id_of,
)

LOG = logging.getLogger(__name__)
INTERVAL = 1.0
"""Seconds between two screening runs of one study in one process: under a burst, each run
takes in every submission of the last second, at the cost of deciding up to a second later."""


class BackgroundHook:
    """An after-submission hook that returns at once and runs ``after`` in a background
    thread, once per study for everything stored since its last run. The thread starts on
    first use, so a hook made before a server forks its workers starts one in each."""

    def __init__(self, after: AfterSubmission, interval: float = INTERVAL) -> None:
        self._after = after
        self._interval = interval
        # study id -> engine and study, in arrival order
        self._pending: dict[int, tuple[sa.Engine, StudyRef]] = {}
        self._last: dict[int, float] = {}  # study id -> when its last run started (monotonic)
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False

    def __call__(self, engine: sa.Engine, study: StudyRef, _assignment: int | None = None) -> None:
        with self._wake:
            if self._closing:  # stopping: the assignment stays unscreened for the next start
                return
            self._pending.setdefault(study_id_of(study), (engine, study))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="harness-screening", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def _work(self) -> None:
        while True:
            with self._wake:
                while True:
                    if not self._pending:
                        if self._closing:
                            return
                        self._wake.wait()
                        continue
                    study_id = min(self._pending, key=lambda s: self._last.get(s, -math.inf))
                    wait = self._last.get(study_id, -math.inf) + self._interval - time.monotonic()
                    if wait <= 0 or self._closing:
                        break
                    self._wake.wait(wait)  # let more submissions of the study arrive
                engine, study = self._pending.pop(study_id)
                self._last[study_id] = time.monotonic()
            # failures are logged as events; the assignments stay unscreened for the next run
            run_after_submission(engine, self._after, study)

    def close(self, timeout: float = 30.0) -> None:
        """Finish what is queued (up to ``timeout`` seconds), then stop the thread."""
        with self._wake:
            self._closing = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)


SWEEP = 5.0
"""Seconds between two looks, in a task server, for work a stopped process left."""


class Sweep:
    """Every ``every`` seconds (the first time at once), run the after-submission hook for each
    study a stopped process left work in (`after_submission.catch_up`): its stored assignments
    not screened, its decisions still to carry out. A task server runs one
    per process beside its requests, so that a process killed in the middle is made good within
    seconds by the others, without waiting for a new submission or a sync. Each look costs two
    queries; the hook runs only for studies with something left."""

    def __init__(
        self, engine: sa.Engine, after: AfterSubmission, *, acting: bool, every: float = SWEEP
    ) -> None:
        self._engine = engine
        self._after = after
        self._acting = acting
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Sweep:
        self._thread = threading.Thread(target=self._run, name="harness-sweep", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = 30.0) -> None:
        """Stop after the look under way."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                catch_up(self._engine, self._after, acting=self._acting, recent_only=True)
            except Exception:  # the store unreachable for a moment: look again later
                LOG.exception("looking for work left by a stopped process failed")
            self._stop.wait(self._every)
