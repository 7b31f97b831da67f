"""Review on Prolific: bulk approval (once each, even across a kill) and return requests."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import requests
from sqlmodel import select

from harness.platform.registry import provider_for
from harness.platform.review import review_study
from harness.spec.model import Action
from harness.store import launched_study, make_engine, session_scope
from harness.store.events import EventKind
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    DecisionState,
    Event,
    Hit,
    ScreeningDecision,
)
from harness.store.submissions import accept
from tests.platform.factories import harness_cli, small_spec
from tests.providers.prolific.conftest import post_to, prolific_spec

AUTH = {"Authorization": "Token local"}


def _submitted(prolific, db: str, pids: list[str]) -> list[str]:
    """Participants join, harness records their sessions, they complete; sync stores it."""
    subs = []
    engine = make_engine(db)
    for pid in pids:
        study = requests.get(
            f"{prolific.url}/participant/studies",
            params={"participant_id": pid, "country": "United States"},
            timeout=5,
        ).json()["results"][0]
        sub = requests.post(
            f"{prolific.url}/participant/studies/{study['id']}/join",
            data={"participant_id": pid},
            timeout=5,
        ).json()["submission_id"]
        with session_scope(engine) as session:
            hit = session.exec(select(Hit).where(Hit.index == len(subs) // 2)).one()
            accept(session, hit, sub, pid)
        full = requests.get(
            f"{prolific.url}/api/v1/studies/{study['id']}/", headers=AUTH, timeout=5
        ).json()
        requests.get(
            f"{prolific.url}/submissions/complete",
            timeout=5,
            params={"cc": full["completion_codes"][0]["code"], "participant_id": pid},
        ).raise_for_status()
        subs.append(sub)
    engine.dispose()
    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output
    return subs


def _events(db: str, kind: EventKind) -> list[Event]:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = list(session.exec(select(Event).where(Event.kind == kind)))
    engine.dispose()
    return found


def _platform_status(prolific, sub: str) -> str:
    got = requests.get(f"{prolific.url}/api/v1/submissions/{sub}/", headers=AUTH, timeout=5)
    return str(got.json()["status"])


def test_review_approves_in_one_bulk_call_and_logs_each_approval_once(prolific, launched):
    _spec, db, _output = launched
    subs = _submitted(prolific, db, [f"5fbulk{i:019d}" for i in range(3)])
    reviewed = harness_cli("review", "small", "--db", db)
    assert reviewed.exit_code == 0, reviewed.output
    assert "small: approve 3" in reviewed.output
    assert [_platform_status(prolific, s) for s in subs] == ["APPROVED"] * 3
    intents = _events(db, EventKind.APPROVE_INTENT)
    assert sorted(e.subject for e in intents) == sorted(subs)
    assert {e.payload["bulk"] for e in intents} == {3}  # one call for the three
    again = harness_cli("review", "small", "--db", db)
    assert "nothing to do" in again.output
    assert sorted(e.subject for e in _events(db, EventKind.APPROVED)) == sorted(subs)


@pytest.mark.slow
def test_a_review_killed_during_the_bulk_approval_approves_once_and_keeps_every_record(
    prolific, launched
):
    _spec, db, _output = launched
    subs = _submitted(prolific, db, [f"5fkill{i:019d}" for i in range(2)])
    held = prolific.hold(post_to("submissions/bulk-approve/"))  # killed while it is in flight
    process = subprocess.Popen([sys.executable, "-m", "harness", "review", "small", "--db", db])
    held.kill_sender(process)
    assert process.returncode == -signal.SIGKILL
    assert len(_events(db, EventKind.APPROVE_INTENT)) == 2
    held.release()  # the call in flight reaches the service
    assert [_platform_status(prolific, s) for s in subs] == ["APPROVED"] * 2
    assert _events(db, EventKind.APPROVED) == []  # the kill came before the record
    rerun = harness_cli("review", "small", "--db", db)
    assert rerun.exit_code == 0, rerun.output
    approved = _events(db, EventKind.APPROVED)
    assert sorted(e.subject for e in approved) == sorted(subs)
    assert all("recovered" in e.payload for e in approved)
    assert len(_events(db, EventKind.APPROVE_INTENT)) == 2  # Prolific was not asked again
    harness_cli("review", "small", "--db", db)
    assert len(_events(db, EventKind.APPROVED)) == 2


def test_a_return_request_decision_asks_once_and_that_work_is_not_approved(prolific, launched):
    _spec, db, _output = launched
    asked, other = _submitted(prolific, db, ["5freturn000000000000001", "5freturn000000000000002"])
    engine = make_engine(db)
    with session_scope(engine) as session:
        assignment = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == asked)
        ).one()
        study = launched_study(session, "small")
        session.add(
            ScreeningDecision(
                study_id=study.id,
                worker_id=assignment.worker_id,
                assignment_id=assignment.id,
                heuristic="quick",
                flag=True,
                action=Action.REQUEST_RETURN,
                state=DecisionState.PENDING,
            )
        )
    with session_scope(engine) as session:
        study = launched_study(session, "small")
        done = review_study(session, provider_for(study), study)
        assert sorted((a.kind.value, a.subject) for a in done) == [
            ("approve", other),
            ("request_return", asked),
        ]
        assert review_study(session, provider_for(study), study) == []
    with session_scope(engine) as session:
        kept = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == asked)
        ).one()
        assert kept.status is AssignmentStatus.SUBMITTED  # until the participant returns it
    engine.dispose()
    got = requests.get(f"{prolific.url}/api/v1/submissions/{asked}/", headers=AUTH, timeout=5)
    assert got.json()["return_requested"] is not None
    assert _platform_status(prolific, asked) == "AWAITING REVIEW"
    assert [e.subject for e in _events(db, EventKind.RETURN_REQUESTED)] == [asked]


def test_request_return_is_refused_with_the_spec_line_on_a_platform_without_it(tmp_path):
    spec = prolific_spec(tmp_path, screening="{quick: {action: request_return}}")
    db = f"sqlite:///{tmp_path / 'h.db'}"
    refused = harness_cli(
        "launch",
        str(spec),
        "--target",
        "link",
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
        "--dry-run",
    )
    assert refused.exit_code != 0
    assert "screening.quick.action" in refused.output
    assert "request_return on Prolific only" in refused.output
    planned = harness_cli(
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
        "--dry-run",
    )
    assert planned.exit_code == 0, planned.output
    on_link = small_spec(
        tmp_path,
        hosting="external",
        platform="{name: link}",
        screening="{quick: {action: request_return}}",
    )
    checked = harness_cli("validate", str(on_link))
    assert checked.exit_code != 0
    assert f"{on_link}:" in checked.output and "screening.quick.action" in checked.output


def test_a_block_whose_process_died_after_the_call_is_found_in_the_group_not_redone(
    prolific, launched
):
    from harness.platform.actions import block_worker
    from harness.store.events import record_event
    from harness.store.owners import new_claim

    _, db, _ = launched
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = launched_study(session, "small")
            provider = provider_for(study)
            ref = study.platform.block_ref
            assert ref is not None and not provider.excluded(ref, "P1")
            # a process logs its intent, blocks P1 on Prolific, and is killed before logging it
            record_event(
                session,
                EventKind.BLOCK_INTENT,
                study_id=study.id,
                subject="P1",
                payload={"reason": "screening h", "owner": new_claim()},
            )
            session.commit()
            provider.exclude(ref, "P1")
            assert provider.excluded(ref, "P1") and not provider.excluded(ref, "P2")
            adds = []
            provider.exclude = lambda *args: adds.append(args)  # type: ignore[method-assign]
            assert block_worker(session, provider, study, "P1", "screening h") is False
            assert adds == []  # found in the group: not added again
    finally:
        engine.dispose()
    (blocked,) = _events(db, EventKind.BLOCKED)
    assert blocked.subject == "P1" and "recovered" in blocked.payload


def _decide(db: str, sub: str, heuristic: str, action: Action) -> None:
    """Screening's decision about the submission ``sub``, pending."""
    engine = make_engine(db)
    with session_scope(engine) as session:
        assignment = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == sub)
        ).one()
        session.add(
            ScreeningDecision(
                study_id=launched_study(session, "small").id,
                worker_id=assignment.worker_id,
                assignment_id=assignment.id,
                heuristic=heuristic,
                flag=True,
                action=action,
                state=DecisionState.PENDING,
            )
        )
    engine.dispose()


def _review(db: str) -> list[tuple[str, str]]:
    engine = make_engine(db)
    with session_scope(engine) as session:
        study = launched_study(session, "small")
        done = review_study(session, provider_for(study), study)
    engine.dispose()
    return sorted((a.kind.value, a.subject) for a in done)


def test_a_submission_asked_to_return_is_never_rejected_after(prolific, launched):
    _spec, db, _output = launched
    (sub,) = _submitted(prolific, db, ["5fonce00000000000000001"])
    _decide(db, sub, "quick", Action.REQUEST_RETURN)
    assert _review(db) == [("request_return", sub)]
    _decide(db, sub, "low_correlation", Action.REJECT)  # decided later, with more data
    assert _review(db) == []
    assert _platform_status(prolific, sub) == "AWAITING REVIEW"
    assert _events(db, EventKind.REJECT_INTENT) == []


def test_reject_and_return_decided_together_reject_only(prolific, launched):
    _spec, db, _output = launched
    (sub,) = _submitted(prolific, db, ["5fboth00000000000000001"])
    _decide(db, sub, "quick", Action.REQUEST_RETURN)
    _decide(db, sub, "low_correlation", Action.REJECT)
    planned = harness_cli("review", "small", "--db", db, "--dry-run")
    assert planned.exit_code == 0, planned.output
    assert "request_return" not in planned.output and "reject 1" in planned.output
    assert _review(db) == [("reject", sub)]
    assert _platform_status(prolific, sub) == "REJECTED"
    assert _events(db, EventKind.RETURN_INTENT) == []
