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
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path

import numpy as np
import pytest
from sqlmodel import select

from harness.platform.decisions import apply_pending_decisions
from harness.providers.mturk import MTurkProvider, make_client
from harness.providers.mturk.crowd import SimulatedWorkers, mturk_worker_id
from harness.providers.mturk.crowd import _answers_url as answers_url
from harness.providers.mturk.local_service import requester_api
from harness.render.answers import encode_answers
from harness.simulate.answering import shown_keys
from harness.spec import load_spec
from harness.spec.model import Action
from harness.store import launched_study, make_engine, session_scope
from harness.store.decisions import add_decisions
from harness.store.models import (
    Assignment,
    DecisionState,
    Event,
    EventKind,
    Judgment,
    QuarantinedSubmission,
    QuarantineState,
    ScreeningDecision,
    Worker,
)
from harness.store.owners import LEASE
from harness.web.tokens import token_in_page
from tests.factories import checkout_env
from tests.platform.factories import (
    crowd_workers,
    harness_cli,
    launch_args,
    small_spec,
    truths_of,
)
from tests.platform.test_sync import launch_and_work
from tests.processes import forked
from tests.serving import until_healthy
from tests.web.test_serve_command import free_port

pytestmark = pytest.mark.slow  # each kills a process or a server and waits on the next


def killed_mid_action(db: str, endpoint: str, operation: str, moment: str, marker: str) -> None:
    """In a process of its own: carry out the study's decisions, stopping at ``operation``
    (``moment``: before or after its platform call) to be killed there."""
    provider = MTurkProvider(make_client("local", endpoint), "local")
    call = getattr(provider, operation)

    def stopped(*args):
        if moment == "after":
            call(*args)
        Path(marker).write_text(moment)
        time.sleep(120)  # killed here

    setattr(provider, operation, stopped)
    engine = make_engine(db)
    with session_scope(engine) as session:
        apply_pending_decisions(session, provider, launched_study(session, "small"))


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
        (decision,) = add_decisions(
            session,
            study.id,
            [
                {
                    "worker_pk": first.worker_id,
                    "assignment_pk": first.id,
                    "heuristic": "quick",
                    "score": 0.5,
                    "evidence": 8,
                    "threshold": 2.0,
                    "flag": True,
                    "action": action,
                    "details": {},
                }
            ],
        )
        return decision.id, worker.platform_worker_id, first.platform_assignment_id


ENV = checkout_env()  # subprocesses run this checkout
PROCESSES = forked(__name__)


def in_the_middle(database_url, mturk, operation, moment, marker) -> BaseProcess:
    """A process carrying out the decisions, stopped at ``operation`` (``moment``: before or
    after the platform call), there to be killed."""
    args = (database_url, mturk.url, operation, moment, str(marker))
    process = PROCESSES.Process(target=killed_mid_action, args=args)
    process.start()
    deadline = time.monotonic() + 300  # a loaded machine starts Python slowly
    while not marker.exists():
        if process.exitcode is not None or time.monotonic() > deadline:
            kill(process)
            raise AssertionError("the process never reached its action")
        time.sleep(0.02)
    return process


def kill(process: BaseProcess) -> None:
    process.kill()  # SIGKILL
    process.join()
    assert process.exitcode == -signal.SIGKILL


def killed_in_the_middle(database_url, mturk, operation, moment, marker) -> None:
    kill(in_the_middle(database_url, mturk, operation, moment, marker))


@contextmanager
def serving(database_url: str, log: Path, *extra: str, port: int | None = None) -> Iterator[str]:
    """`harness serve` (two worker processes) in a session of its own until the block ends,
    then the whole session SIGKILLed: a machine lost, as far as the store can tell."""
    port = port or free_port()
    args = [
        sys.executable,
        "-m",
        "harness",
        "serve",
        "--db",
        database_url,
        "--port",
        str(port),
        "--workers",
        "2",
        "--threads",
        "4",
        *extra,
    ]
    with (
        log.open("wb") as out,
        subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, env=ENV, start_new_session=True
        ) as process,
    ):
        url = f"http://127.0.0.1:{port}"
        try:
            until_healthy(process, url, log)  # as fast as it starts, up to 3 min
            yield url
        finally:
            os.killpg(process.pid, signal.SIGKILL)


def until(condition, seconds: float) -> float:
    """Wait until ``condition()`` holds; the seconds it took (AssertionError after
    ``seconds``)."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, f"not within {seconds:g} s"
        time.sleep(0.1)
    return time.monotonic() - started


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
    # no claim timeout waited out (the shortest, a lease, is 30 s; the work takes well under 1)
    assert time.monotonic() - started < LEASE.total_seconds()

    assert platform_calls == Counter({(call, subject): 1})  # exactly one block or rejection
    with session_scope(engine) as session:
        decision = session.get(ScreeningDecision, decision_id)
        assert decision.state is DecisionState.APPLIED
        results = session.exec(select(Event).where(Event.kind == RESULT[operation])).all()
        intents = session.exec(
            select(Event).where(Event.kind.in_([EventKind.BLOCK_INTENT, EventKind.REJECT_INTENT]))
        ).all()
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


def test_a_task_server_completes_what_a_killed_process_left_without_a_new_submission(
    launched, database_url, mturk, platform_calls, tmp_path
):
    engine = launched
    decision_id, worker, _ = decide(engine, Action.BLOCK)
    process = in_the_middle(database_url, mturk, "exclude", "after", tmp_path / "marker")
    try:
        with serving(database_url, tmp_path / "serve.log"):
            with session_scope(engine) as session:  # held by a live process: left to it
                assert session.get(ScreeningDecision, decision_id).state is DecisionState.CLAIMED
            kill(process)

            def applied():
                with session_scope(engine) as session:
                    decision = session.get(ScreeningDecision, decision_id)
                    return decision.state is DecisionState.APPLIED

            took = until(applied, 300)
    finally:
        if process.exitcode is None:
            kill(process)
    # the server's next look (every SWEEP = 5 s), not a claim timeout (a lease: 30 s)
    assert took < LEASE.total_seconds()
    assert platform_calls == Counter({("AssociateQualificationWithWorker", worker): 1})
    with session_scope(engine) as session:
        blocked = session.exec(select(Event).where(Event.kind == EventKind.BLOCKED)).all()
    assert [e.subject for e in blocked] == [worker] and "recovered" in blocked[0].payload


def test_submissions_a_killed_server_quarantined_are_verified_by_the_next_without_a_sync(
    database_url, mturk, http, tmp_path
):
    """The pages post their answers before MTurk knows the assignments are completed: the
    first server quarantines them and dies (its whole session SIGKILLed) before MTurk has
    them; a second server, started afterwards, asks MTurk again on the store's schedule."""
    spec = small_spec(
        tmp_path,
        items=8,
        per_hit=2,
        raters=2,
        hosting="external",
        screening="{quick: {action: report}}",
    )
    loaded = load_spec(spec)
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    launched = harness_cli(*launch_args(spec, mturk.url, database_url, "--public-url", public))
    assert launched.exit_code == 0, launched.output
    workers = SimulatedWorkers(
        mturk.url, crowd_workers(loaded, 4), truths_of(loaded), loaded.scale, http
    )
    rng = np.random.default_rng(0)
    to_submit = []
    with serving(database_url, tmp_path / "first.log", port=port):
        for worker in workers.workers:
            worker_id = mturk_worker_id(worker.worker_id)
            listed = http.get(f"{mturk.url}/worker/hits", params={"workerId": worker_id})
            hit = listed.json()["HITs"][0]["HITId"]
            task = http.post(
                f"{mturk.url}/worker/hits/{hit}/accept", data={"workerId": worker_id}
            ).json()
            page = http.get(task["ExternalURL"])
            keys = shown_keys(page.text)
            fields = encode_answers(workers.answers(worker, keys, rng))
            posted = http.post(
                answers_url(task["ExternalURL"]),
                data={
                    "assignmentId": task["AssignmentId"],
                    "workerId": worker_id,
                    "hitId": hit,
                    "pageToken": token_in_page(page.text),
                }
                | fields,
            )
            assert posted.json()["verified"] is False, posted.text  # quarantined
            to_submit.append((task, fields, len(keys)))
    for task, fields, _ in to_submit:  # the workers' pages complete the assignments on MTurk
        done = http.post(task["SubmitURL"], data={"assignmentId": task["AssignmentId"]} | fields)
        assert done.status_code == 200
    engine = make_engine(database_url)
    try:
        assert quarantined(engine) == {QuarantineState.PENDING: 4}  # nobody asked MTurk since
        with serving(database_url, tmp_path / "second.log"):
            took = until(lambda: quarantined(engine) == {QuarantineState.VERIFIED: 4}, 300)
            until(lambda: all(a.screened_at for a in stored(engine)), 300)
        with session_scope(engine) as session:
            resolved = Counter(
                e.subject
                for e in session.exec(
                    select(Event).where(Event.kind == EventKind.QUARANTINE_RESOLVED)
                )
            )
            judgments = Counter(j.assignment_id for j in session.exec(select(Judgment)))
    finally:
        engine.dispose()
    # at once: the schedule was due while no server ran (started afresh, it takes a minute)
    assert took < 30
    assert sorted(resolved) == sorted(t["AssignmentId"] for t, _, _ in to_submit)
    assert set(resolved.values()) == {1}  # each settled once
    assert sorted(judgments.values()) == sorted(n for _, _, n in to_submit)


def quarantined(engine) -> dict[QuarantineState, int]:
    with session_scope(engine) as session:
        return dict(Counter(q.state for q in session.exec(select(QuarantinedSubmission))))


def stored(engine) -> list[Assignment]:
    with session_scope(engine) as session:
        return list(session.exec(select(Assignment)))
