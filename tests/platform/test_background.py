"""Live screening off the request path (`harness.platform.submissions.background.
BackgroundHook`): a burst of submissions is screened in a few runs, the last submission always
among them, a failure is an event, and stopping finishes what is queued."""

from __future__ import annotations

import threading
import time

from sqlmodel import select

from harness.platform.submissions.background import BackgroundHook
from harness.store import session_scope
from harness.store.models import Event, EventKind
from tests.web.factories import plan_study, write_task_spec


def test_a_burst_is_screened_in_few_runs_that_cover_the_last_submission(engine):
    runs: list[float] = []

    def after(_engine, study, _assignment):
        assert study == 7
        runs.append(time.monotonic())
        time.sleep(0.05)

    hook = BackgroundHook(after, interval=0.2)
    started = time.monotonic()
    calls = []
    for _ in range(40):  # 40 submissions over about 0.4 s, from several request threads
        threads = [threading.Thread(target=hook, args=(engine, 7, None)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        calls.append(time.monotonic())
        time.sleep(0.01)
    hook.close()
    # at most one run an interval (and one for the last), not 80: about 3 on a quiet machine,
    # more where the submissions took longer to arrive
    assert 1 <= len(runs) <= (calls[-1] - started) / 0.2 + 2 < 80
    assert runs[-1] >= calls[-1]  # the last submission was screened


def test_a_failing_run_is_an_event_and_later_calls_still_run(engine, tmp_path):
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    outcomes = iter([ConnectionError("the database went away"), None])
    first_ran = threading.Event()

    def after(_engine, _study, _assignment):
        first_ran.set()
        failure = next(outcomes)
        if failure is not None:
            raise failure

    hook = BackgroundHook(after, interval=0.0)
    hook(engine, 1, None)
    assert first_ran.wait(120)  # the second call comes after the first run began
    hook(engine, 1, None)
    hook.close()
    with session_scope(engine) as session:
        failed = session.exec(
            select(Event).where(Event.kind == EventKind.AFTER_SUBMISSION_FAILED)
        ).all()
    assert [(e.study_id, e.payload["error"]) for e in failed] == [
        (1, "ConnectionError: the database went away")
    ]
    assert next(outcomes, "both ran") == "both ran"


def test_closing_an_unused_hook_returns_at_once_and_later_calls_are_left_for_the_next_start():
    ran = []
    hook = BackgroundHook(lambda *_: ran.append(1))
    hook.close()
    hook(None, 1, None)  # stopping: stored, left unscreened for the next start
    assert ran == []
