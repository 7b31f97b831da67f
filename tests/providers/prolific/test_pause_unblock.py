"""Pausing, resuming and unblocking on Prolific: the local service's study transitions (PAUSE:
ACTIVE -> PAUSED, START: PAUSED -> ACTIVE, each refused from any other state in Prolific's error
shape) and participant-group removal, through plain HTTP and through the provider's real
client; `harness pause` / `harness resume` exactly once, even when killed mid-call."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import requests
from sqlmodel import select

from harness.providers.prolific.client import ProlificClient, ProlificError
from harness.providers.prolific.provider import ProlificProvider
from harness.store import make_engine, session_scope
from harness.store.models import Event, Study
from tests.factories import checkout_env
from tests.platform.factories import harness_cli
from tests.providers.prolific.conftest import post_to
from tests.providers.prolific.test_bad_input import api, published, refused, study_body


def provider(prolific: Any) -> ProlificProvider:
    return ProlificProvider(
        ProlificClient(prolific.url, "local", sleep=lambda _s: None), "prolific-local"
    )


def status_of(prolific: Any, sid: str) -> str:
    return str(api(prolific, "GET", f"studies/{sid}/").json()["status"])


def move(prolific: Any, sid: str, action: str) -> requests.Response:
    return api(prolific, "POST", f"studies/{sid}/transition/", json={"action": action})


def test_a_study_pauses_from_active_starts_from_paused_and_refuses_every_other_move(prolific):
    draft = api(prolific, "POST", "studies/", json=study_body()).json()["id"]
    assert refused(move(prolific, draft, "PAUSE")) == "Cannot PAUSE a study that is UNPUBLISHED."
    assert refused(move(prolific, draft, "START")) == "Cannot START a study that is UNPUBLISHED."
    sid = published(prolific)
    assert move(prolific, sid, "START").json()["status"] == "ACTIVE"  # there already: 200
    paused = move(prolific, sid, "PAUSE")
    assert paused.status_code == 200 and paused.json()["status"] == "PAUSED"
    assert move(prolific, sid, "PAUSE").json()["status"] == "PAUSED"  # a repeat changes nothing
    assert move(prolific, sid, "START").json()["status"] == "ACTIVE"
    assert refused(move(prolific, sid, "RESUME")) == {
        "action": ["Must be one of PUBLISH, PAUSE, START, STOP."]
    }
    assert move(prolific, sid, "STOP").json()["status"] == "AWAITING REVIEW"
    for action in ("PAUSE", "START"):
        detail = refused(move(prolific, sid, action))
        assert detail == f"Cannot {action} a study that is AWAITING REVIEW."
    assert status_of(prolific, sid) == "AWAITING REVIEW"


def test_a_paused_study_takes_no_new_participant_and_those_in_it_complete(prolific):
    sid = published(prolific)
    base = prolific.url
    joined = requests.post(
        f"{base}/participant/studies/{sid}/join", data={"participant_id": "P1"}, timeout=10
    )
    assert joined.status_code == 201
    move(prolific, sid, "PAUSE")
    listed = requests.get(
        f"{base}/participant/studies", params={"participant_id": "P2"}, timeout=10
    )
    assert listed.json()["results"] == []
    late = requests.post(
        f"{base}/participant/studies/{sid}/join", data={"participant_id": "P2"}, timeout=10
    )
    assert refused(late, 409) == "This study is paused: no place can be reserved now."
    done = requests.get(
        f"{base}/submissions/complete", params={"cc": "C0DE", "participant_id": "P1"}, timeout=10
    )
    assert done.status_code == 200 and done.json()["status"] == "AWAITING REVIEW"
    move(prolific, sid, "START")
    again = requests.post(
        f"{base}/participant/studies/{sid}/join", data={"participant_id": "P2"}, timeout=10
    )
    assert again.status_code == 201


def test_the_provider_pauses_and_resumes_once_and_names_the_state_it_cannot_move_from(prolific):
    sid = published(prolific)
    client = provider(prolific)
    client.pause(sid)
    client.pause(sid)  # read first: nothing sent
    assert status_of(prolific, sid) == "PAUSED"
    client.resume(sid)
    client.resume(sid)
    assert status_of(prolific, sid) == "ACTIVE"
    move(prolific, sid, "STOP")
    with pytest.raises(ProlificError) as raised:
        client.pause(sid)
    assert str(raised.value) == (
        f"Prolific says study {sid} is AWAITING REVIEW: only a study that is ACTIVE can be "
        "moved by PAUSE"
    )


def test_participants_leave_a_group_once_and_others_are_ignored(prolific):
    made = api(prolific, "POST", "participant-groups/", json={"name": "g"}).json()["id"]
    api(
        prolific,
        "POST",
        f"participant-groups/{made}/participants/",
        json={"participant_ids": ["P1", "P2"]},
    )
    left = api(
        prolific,
        "DELETE",
        f"participant-groups/{made}/participants/",
        json={"participant_ids": ["P1", "NEVER"]},
    )
    assert left.status_code == 200
    assert [r["participant_id"] for r in left.json()["results"]] == ["P2"]
    client = provider(prolific)
    client.include(made, "P2")
    client.include(made, "P2")  # not a member any more: ignored
    members = api(prolific, "GET", f"participant-groups/{made}/participants/").json()
    assert members["results"] == []
    unknown = api(
        prolific,
        "DELETE",
        "participant-groups/nope/participants/",
        json={"participant_ids": ["P1"]},
    )
    assert refused(unknown, 404) == "Participant group nope not found."
    bad = api(
        prolific,
        "DELETE",
        f"participant-groups/{made}/participants/",
        json={"participant_ids": "P1"},
    )
    assert bad.status_code == 400


def _events(db: str, kind: str) -> list[Event]:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = list(session.exec(select(Event).where(Event.kind == kind)))
    engine.dispose()
    return found


def _study_status(db: str) -> str:
    engine = make_engine(db)
    with session_scope(engine) as session:
        status = session.exec(select(Study.status)).one()
    engine.dispose()
    return str(status.value)


def _prolific_study(prolific: Any) -> dict[str, Any]:
    [study] = api(prolific, "GET", "studies/").json()["results"]
    return dict(study)


def test_harness_pause_and_resume_move_the_prolific_study_once_each(prolific, launched):
    _spec, db, _output = launched
    paused = harness_cli("pause", "small", "--db", db, "--reason", "checking the page")
    assert paused.exit_code == 0, paused.output
    assert paused.output.startswith("small: paused. On Prolific, Prolific stops showing the study")
    assert _prolific_study(prolific)["status"] == "PAUSED"
    assert "paused already; nothing changed" in harness_cli("pause", "small", "--db", db).output
    status = harness_cli("status", "small", "--db", db)
    assert "study small on prolific-local: paused" in status.output
    resumed = harness_cli("resume", "small", "--db", db)
    assert resumed.output == "small: resumed; new workers can start\n"
    assert _prolific_study(prolific)["status"] == "ACTIVE"
    assert "running already" in harness_cli("resume", "small", "--db", db).output
    [intent] = _events(db, "study.pause.intent")
    assert intent.payload == {"reason": "checking the page", "from": "running"}
    assert [e.payload["platform"] for e in _events(db, "study.paused")] == [
        _prolific_study(prolific)["id"]
    ]
    assert len(_events(db, "study.resumed")) == 1


def test_a_pause_prolific_refuses_leaves_the_study_running_and_says_why(prolific, launched):
    _spec, db, _output = launched
    sid = _prolific_study(prolific)["id"]
    move(prolific, sid, "STOP")  # stopped on Prolific's site: harness does not know yet
    refusal = harness_cli("pause", "small", "--db", db)
    assert refusal.exit_code == 1
    why = f"Prolific says study {sid} is AWAITING REVIEW: only a study that is ACTIVE can be"
    assert why in refusal.output
    assert _study_status(db) == "running"
    [failed] = _events(db, "study.pause.failed")
    assert why in failed.payload["error"]
    assert _events(db, "study.paused") == []


@pytest.mark.slow
def test_a_pause_killed_during_the_call_is_finished_by_the_next_once(prolific, launched):
    _spec, db, _output = launched
    held = prolific.hold(post_to("studies/[^/]+/transition/"))  # killed while it is in flight
    env = checkout_env()
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "pause", "small", "--db", db], env=env
    )
    held.kill_sender(process)
    assert len(_events(db, "study.pause.intent")) == 1
    held.release()  # the call in flight reaches the service
    assert _study_status(db) == "paused"  # the intent and the new status were committed first
    assert _events(db, "study.paused") == []
    again = harness_cli("pause", "small", "--db", db)
    assert again.exit_code == 0, again.output
    assert again.output.startswith("small: paused.")
    assert _prolific_study(prolific)["status"] == "PAUSED"
    assert len(_events(db, "study.paused")) == 1
    assert "paused already" in harness_cli("pause", "small", "--db", db).output
    assert len(_events(db, "study.pause.intent")) == 1
