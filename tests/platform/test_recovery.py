"""A process killed in the middle of carrying out a screening decision (SIGKILL of a real
process, before or after its platform call): the next process completes the decision at once,
not after the claim timeout, and the platform sees the block or rejection exactly once
(counted at the local MTurk service), on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from sqlmodel import select

from harness.platform.mturk import MTurkProvider, make_client
from harness.platform.mturk_local import requester_api
from harness.platform.review import apply_pending_decisions
from harness.spec.model import Action
from harness.store import launched_study, make_engine, session_scope
from harness.store.decisions import add_decisions
from harness.store.models import (
    Assignment,
    DecisionState,
    Event,
    EventKind,
    ScreeningDecision,
    Worker,
)
from tests.factories import PROJECT_ROOT
from tests.platform.factories import harness_cli
from tests.platform.test_sync import launch_and_work

KILLED_MID_ACTION = """
import pathlib, sys, time
from harness.platform.mturk import MTurkProvider, make_client
from harness.platform.review import apply_pending_decisions
from harness.store import launched_study, make_engine, session_scope

db, endpoint, operation, moment, marker = sys.argv[1:]
provider = MTurkProvider(make_client("local", endpoint), "local")
call = getattr(provider, operation)

def stopped(*args):
    if moment == "after":
        call(*args)
    pathlib.Path(marker).write_text(moment)
    time.sleep(120)  # killed here

setattr(provider, operation, stopped)
engine = make_engine(db)
with session_scope(engine) as session:
    apply_pending_decisions(session, provider, launched_study(session, "small"))
"""

SUBJECT = {"AssociateQualificationWithWorker": "WorkerId", "RejectAssignment": "AssignmentId"}
ACTION = {"exclude": Action.BLOCK, "reject": Action.REJECT}
RESULT = {"exclude": EventKind.BLOCKED, "reject": EventKind.REJECTED}


@pytest.fixture
def platform_calls(monkeypatch):
    """Every block and rejection the local MTurk service carries out: (operation, subject)."""
    calls: Counter[tuple[str, str]] = Counter()
    lock = threading.Lock()
    for name, key in SUBJECT.items():
        original = requester_api.OPERATIONS[name]

        def counted(ctx, params, name=name, key=key, original=original):
            answer = original(ctx, params)
            with lock:
                calls[(name, params[key])] += 1
            return answer

        monkeypatch.setitem(requester_api.OPERATIONS, name, counted)
    return calls


@pytest.fixture
def launched(tmp_path, mturk, http, database_url):
    """A small study done by 4 simulated workers on the local MTurk service, synced."""
    launch_and_work(tmp_path, mturk, http, database_url)
    assert harness_cli("sync", "small", "--db", database_url).exit_code == 0
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def decide(engine, action: Action) -> tuple[int, str, str]:
    """Store one pending decision about the first assignment's worker: (its id, the platform's
    worker id, the assignment id)."""
    with session_scope(engine) as session:
        study = launched_study(session, "small")
        first = session.exec(select(Assignment).order_by(Assignment.id)).first()
        assert first is not None
        worker = session.get(Worker, first.worker_id)
        (decision,) = add_decisions(session, study.id, [{
            "worker_pk": first.worker_id, "assignment_pk": first.id, "heuristic": "quick",
            "score": 0.5, "evidence": 8, "threshold": 2.0, "flag": True, "action": action,
            "details": {},
        }])  # fmt: skip
        return decision.id, worker.platform_worker_id, first.platform_assignment_id


def killed_in_the_middle(database_url, mturk, operation, moment, marker) -> None:
    """Run the decisions in a process that stops at ``operation`` (``moment``: before or
    after the platform call) and SIGKILL it there."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    args = [database_url, mturk.url, operation, moment, str(marker)]
    with subprocess.Popen([sys.executable, "-c", KILLED_MID_ACTION, *args], env=env) as process:
        try:
            deadline = time.monotonic() + 60
            while not marker.exists():
                assert process.poll() is None, "the process ended before its action"
                assert time.monotonic() < deadline, "the process never reached its action"
                time.sleep(0.02)
        finally:
            os.kill(process.pid, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL


@pytest.mark.parametrize(
    ("operation", "moment"), [("exclude", "after"), ("reject", "after"), ("exclude", "before")]
)
def test_a_decision_killed_mid_action_is_completed_at_once_and_done_once(
    launched, database_url, mturk, platform_calls, tmp_path, operation, moment
):
    engine = launched
    decision_id, worker, assignment = decide(engine, ACTION[operation])
    killed_in_the_middle(database_url, mturk, operation, moment, tmp_path / "marker")
    subject = worker if operation == "exclude" else assignment
    call = "AssociateQualificationWithWorker" if operation == "exclude" else "RejectAssignment"
    assert platform_calls[(call, subject)] == (1 if moment == "after" else 0)
    with session_scope(engine) as session:
        stuck = session.get(ScreeningDecision, decision_id)
        assert stuck.state is DecisionState.CLAIMED  # held by the dead process

    provider = MTurkProvider(make_client("local", mturk.url), "local")
    started = time.monotonic()
    with session_scope(engine) as session:
        done = apply_pending_decisions(session, provider, launched_study(session, "small"))
    assert time.monotonic() - started < 10  # no claim timeout waited out

    assert platform_calls == Counter({(call, subject): 1})  # exactly one block or rejection
    with session_scope(engine) as session:
        decision = session.get(ScreeningDecision, decision_id)
        assert decision.state is DecisionState.APPLIED
        results = session.exec(select(Event).where(Event.kind == RESULT[operation])).all()
        intents = session.exec(select(Event).where(Event.kind.in_(
            [EventKind.BLOCK_INTENT, EventKind.REJECT_INTENT]))).all()  # fmt: skip
        applied = session.exec(select(Event).where(Event.kind == EventKind.SCREENING_APPLIED))
        assert [e.payload["decision"] for e in applied] == [decision_id]
    assert [e.subject for e in results] == [subject]
    if moment == "after":  # the dead process's call went through: logged, not done again
        assert done == []
        assert "stopped before logging its result" in results[0].payload["recovered"]
        assert results[0].payload["intent"] == intents[0].id and len(intents) == 1
    else:  # it never called: done now, under a new intent
        assert [a.subject for a in done] == [subject]
        assert "recovered" not in results[0].payload and len(intents) == 2
