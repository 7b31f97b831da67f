"""Screening decisions in the store: pending until claimed, claimed by exactly one process (a
conditional update decides), an abandoned claim pending again, settled after the action."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest
from sqlmodel import select

from harness.spec import load_spec
from harness.spec.model import Action
from harness.store import create_study, decisions, make_engine, owners, session_scope
from harness.store.decisions import (
    CLAIM_TIMEOUT,
    add_decisions,
    claim,
    pending_decisions,
    settle,
    studies_with_open_decisions,
)
from harness.store.models import DecisionState, ScreeningDecision, Worker, utcnow
from tests.factories import (
    MINIMAL_ITEMS,
    MINIMAL_RATING_SPEC,
    checkout_env,
    write_spec,
)

HOLD_A_CLAIM = """
import sys, time
from harness.store import make_engine, session_scope
from harness.store.decisions import claim
from harness.store.models import ScreeningDecision
engine = make_engine(sys.argv[1])
with session_scope(engine) as session:
    print(claim(session, session.get(ScreeningDecision, int(sys.argv[2]))), flush=True)
time.sleep(120)
"""


@pytest.fixture
def study(database_url, tmp_path, monkeypatch):
    held: list[str] = []

    def holding(engine, claim: str) -> None:
        held.append(claim)
        owners.hold(engine, claim)

    monkeypatch.setattr(decisions, "hold", holding)  # noted, to be let go of after the test
    engine = make_engine(database_url)
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        worker = Worker(platform_worker_id="W1")
        session.add(worker)
        session.flush()
        ids = (study.id, worker.id)
    yield engine, ids
    for claim_held in held:  # stop renewing the leases of claims the test left held
        owners.release(claim_held)
    engine.dispose()


def change(worker, heuristic, flag, action):
    return {
        "worker_pk": worker,
        "assignment_pk": None,
        "heuristic": heuristic,
        "score": 0.1,
        "evidence": 5,
        "threshold": 0.3,
        "flag": flag,
        "action": action,
        "details": {},
    }


def test_only_raised_flags_that_act_are_pending(study):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        stored = add_decisions(
            session,
            study_id,
            [
                change(worker, "low_variance", True, Action.BLOCK),
                change(worker, "quick", True, Action.REPORT),
                change(worker, "consensus_correlation", False, Action.BLOCK),
            ],
        )
        assert [d.state for d in stored] == [
            DecisionState.PENDING,
            DecisionState.RECORDED,
            DecisionState.RECORDED,
        ]
    with session_scope(engine) as session:
        assert [d.heuristic for d in pending_decisions(session, study_id)] == ["low_variance"]


def test_of_two_claims_of_one_decision_exactly_one_wins(study):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        (decision,) = add_decisions(session, study_id, [change(worker, "slow", True, Action.BLOCK)])
    with session_scope(engine) as first, session_scope(engine) as second:
        mine = first.get(ScreeningDecision, decision.id)
        theirs = second.get(ScreeningDecision, decision.id)
        assert claim(first, mine) is True
        assert claim(second, theirs) is False
    with session_scope(engine) as session:
        assert pending_decisions(session, study_id) == []  # claimed: not pending


def test_an_abandoned_claim_is_pending_again_and_can_be_claimed(study):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        (decision,) = add_decisions(session, study_id, [change(worker, "slow", True, Action.BLOCK)])
        assert claim(session, decision)
    later = utcnow() + CLAIM_TIMEOUT + timedelta(seconds=1)
    with session_scope(engine) as session:
        (pending,) = pending_decisions(session, study_id, now=later)
        assert pending.id == decision.id
        assert claim(session, pending, now=later)
        settle(session, pending, DecisionState.APPLIED)
    with session_scope(engine) as session:
        stored = session.exec(select(ScreeningDecision)).one()
        assert stored.state is DecisionState.APPLIED and stored.claimed_at is None
        assert pending_decisions(session, study_id, now=later) == []


def test_a_decision_put_back_is_pending_again(study):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        rejection = change(worker, "quick", True, Action.REJECT)
        (decision,) = add_decisions(session, study_id, [rejection])
        assert claim(session, decision)
        settle(session, decision, DecisionState.PENDING)  # e.g. not submitted on the platform yet
    with session_scope(engine) as session:
        assert [d.id for d in pending_decisions(session, study_id)] == [decision.id]


def test_a_claim_of_a_killed_process_is_taken_over_at_once(study, database_url):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        (decision,) = add_decisions(session, study_id, [change(worker, "slow", True, Action.BLOCK)])
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_A_CLAIM, database_url, str(decision.id)],
        stdout=subprocess.PIPE,
        env=checkout_env(),
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline() == b"True\n"
            with session_scope(engine) as session:
                assert pending_decisions(session, study_id) == []  # its holder is alive
                assert claim(session, session.get(ScreeningDecision, decision.id)) is False
        finally:
            os.kill(process.pid, signal.SIGKILL)
    with session_scope(engine) as session:
        (pending,) = pending_decisions(session, study_id)  # no timeout waited
        assert pending.state is DecisionState.CLAIMED and pending.id == decision.id
        with session_scope(engine) as other:  # two takers: one wins
            theirs = other.get(ScreeningDecision, decision.id)
            assert claim(session, pending) is True
            assert claim(other, theirs) is False
        assert pending.claimed_by is not None and pending.claimed_by != theirs.claimed_by


def test_studies_with_decisions_to_carry_out_include_claimed_and_recent_pending_ones(study):
    engine, (study_id, worker) = study
    with session_scope(engine) as session:
        assert studies_with_open_decisions(session) == []
        first, second = add_decisions(
            session,
            study_id,
            [
                change(worker, "slow", True, Action.BLOCK),
                change(worker, "quick", True, Action.REPORT),
            ],
        )
    later = utcnow() + timedelta(minutes=1)
    with session_scope(engine) as session:
        assert studies_with_open_decisions(session) == [study_id]
        assert studies_with_open_decisions(session, pending_since=later) == []  # waits: old
        assert claim(session, session.get(ScreeningDecision, first.id))
        assert studies_with_open_decisions(session, pending_since=later) == [study_id]
        settle(session, first, DecisionState.APPLIED)
    with session_scope(engine) as session:
        assert studies_with_open_decisions(session) == []  # a report never acts
