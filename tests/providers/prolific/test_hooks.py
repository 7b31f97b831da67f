"""Prolific's hooks end to end: the local service subscribes, signs and posts status changes;
the task server verifies them and stores them as sync does."""

from __future__ import annotations

import json
import time

import pytest
import requests
from sqlmodel import select

from harness.providers.prolific.client import ProlificClient, ProlificError
from harness.providers.prolific.hooks import SIGNATURE, TIMESTAMP, signature
from harness.providers.prolific.provider import ProlificProvider
from harness.store import make_engine, session_scope
from harness.store.events import EventKind
from harness.store.models import Assignment, AssignmentStatus, Event, Hit, StoreSecret
from harness.store.submissions import accept
from tests.platform.factories import harness_cli, task_server
from tests.providers.prolific.conftest import prolific_spec

AUTH = {"Authorization": "Token local"}


def _provider(url: str) -> ProlificProvider:
    return ProlificProvider(ProlificClient(url, "local", sleep=lambda _s: None), "prolific-local")


def test_subscribing_makes_one_confirmed_subscription_however_often_it_runs(prolific):
    provider = _provider(prolific.url)
    assert provider.hook_refusal("http://tasks.test/hooks/prolific") is not None
    target = "http://127.0.0.1:9/hooks/prolific"
    assert provider.hook_refusal(target) is None
    first = provider.subscribe(target)
    again = provider.subscribe(target)
    assert first == again  # the same workspace secret, not a new one
    subs = provider.client.call("GET", "hooks/subscriptions/", safe=True)["results"]
    assert [(s["target_url"], s["is_enabled"]) for s in subs] == [(target, True)]
    secrets = provider.client.call("GET", "hooks/secrets/", safe=True)["results"]
    assert [s["value"] for s in secrets] == [first[1]]


def test_an_unconfirmed_subscription_is_replaced_and_non_loopback_targets_are_refused(prolific):
    provider = _provider(prolific.url)
    target = "http://127.0.0.1:9/hooks/prolific"
    provider.subscribe(target)
    made = requests.post(
        f"{prolific.url}/api/v1/hooks/subscriptions/",
        headers=AUTH,
        timeout=5,
        json={
            "workspace_id": provider.workspace(),
            "target_url": target + "x",
            "event_type": "submission.status.change",
        },
    )
    assert made.status_code == 201 and made.headers["X-Hook-Secret"]
    hook_id = made.json()["results"][0]["id"]
    assert made.json()["results"][0]["is_enabled"] is False  # until confirmed
    wrong = requests.post(
        f"{prolific.url}/api/v1/hooks/subscriptions/{hook_id}/",
        headers=AUTH,
        json={"secret": "nope"},
        timeout=5,
    )
    assert wrong.status_code == 400 and "X-Hook-Secret" in json.dumps(wrong.json()["error"])
    provider.subscribe(target + "x")  # finds it unconfirmed: deletes it, subscribes again
    subs = provider.client.call("GET", "hooks/subscriptions/", safe=True)["results"]
    assert sorted((s["target_url"], s["is_enabled"]) for s in subs) == [
        (target, True),
        (target + "x", True),
    ]
    with pytest.raises(ProlificError, match="loopback"):
        provider.client.call(
            "POST",
            "hooks/subscriptions/",
            safe=False,
            json={
                "workspace_id": provider.workspace(),
                "target_url": "https://example.org/h",
                "event_type": "submission.status.change",
            },
        )


@pytest.fixture
def hooked(prolific, tmp_path, database_url):
    """The small study launched on the local service with the task server as its public URL
    (loopback: the service subscribes it), on SQLite and PostgreSQL; (db, task server URL)."""
    db = database_url
    served, app = task_server(db)
    spec = prolific_spec(tmp_path)
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--endpoint-url",
        prolific.url,
        "--db",
        db,
        "--public-url",
        served.url,
    )
    assert result.exit_code == 0, result.output
    assert f"hooks: {served.url}/hooks/prolific receives submission status" in result.output
    yield db, served.url
    served.stop()
    app.extensions["harness"].close()


def _events(db: str, kind: EventKind) -> list[Event]:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = list(session.exec(select(Event).where(Event.kind == kind)))
    engine.dispose()
    return found


def _status(db: str, sub: str) -> AssignmentStatus:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == sub)
        ).one()
        status = found.status
    engine.dispose()
    return status


def _join(prolific, db: str, pid: str) -> tuple[str, str]:
    """A participant takes a place and harness records the session, as the allocator does;
    (submission id, completion code)."""
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
    engine = make_engine(db)
    with session_scope(engine) as session:
        accept(session, session.exec(select(Hit).where(Hit.index == 0)).one(), sub, pid)
    engine.dispose()
    full = requests.get(f"{prolific.url}/api/v1/studies/{study['id']}/", headers=AUTH, timeout=5)
    return sub, full.json()["completion_codes"][0]["code"]


def _wait_for(check, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the hook did not arrive"
        time.sleep(0.05)


def test_a_status_change_reaches_the_task_server_signed_and_a_replay_changes_nothing(
    prolific, hooked
):
    db, tasks = hooked
    subscribed = _events(db, EventKind.NOTIFICATIONS)
    assert [(e.subject, e.payload["subscribed"]) for e in subscribed] == [
        (f"{tasks}/hooks/prolific", True)
    ]
    pid = "5fparticipant000000000011"
    sub, code = _join(prolific, db, pid)
    requests.get(
        f"{prolific.url}/submissions/complete",
        params={"cc": code, "participant_id": pid},
        timeout=5,
    ).raise_for_status()
    _wait_for(lambda: _status(db, sub) is AssignmentStatus.SUBMITTED)
    changes = len(_events(db, EventKind.ASSIGNMENT_STATUS))
    assert changes == 1

    engine = make_engine(db)
    with session_scope(engine) as session:
        secret = (
            session.exec(select(StoreSecret).where(StoreSecret.name.startswith("hook:prolific:")))
            .one()
            .value
        )  # type: ignore[attr-defined]
    engine.dispose()
    body = json.dumps(
        {
            "resource_id": sub,
            "event_type": "submission.status.change",
            "participant_id": pid,
            "status": "AWAITING REVIEW",
        }
    ).encode()
    stamp = str(int(time.time()))
    good = {TIMESTAMP: stamp, SIGNATURE: signature(secret, stamp, body)}
    replay = requests.post(f"{tasks}/hooks/prolific", data=body, headers=good, timeout=10)
    assert replay.status_code == 200 and replay.json()["status_changes"] == 0
    assert len(_events(db, EventKind.ASSIGNMENT_STATUS)) == changes

    forged = requests.post(
        f"{tasks}/hooks/prolific",
        data=body,
        timeout=5,
        headers={TIMESTAMP: stamp, SIGNATURE: signature("x", stamp, body)},
    )
    assert forged.status_code == 401 and forged.json()["ok"] is False
    old = str(int(time.time()) - 3600)
    stale = requests.post(
        f"{tasks}/hooks/prolific",
        data=body,
        timeout=5,
        headers={TIMESTAMP: old, SIGNATURE: signature(secret, old, body)},
    )
    assert stale.status_code == 400 and "five minutes" in stale.json()["error"]
    bare = requests.post(f"{tasks}/hooks/prolific", data=body, timeout=5)
    assert bare.status_code == 400

    provider = _provider(prolific.url)
    provider.approve(sub)  # the approval arrives by hook too
    _wait_for(lambda: _status(db, sub) is AssignmentStatus.APPROVED)
    synced = harness_cli("sync", "small", "--db", db)  # polling finds nothing left to do
    assert synced.exit_code == 0, synced.output
    assert "0 assignment and 0 HIT status changes" in synced.output


def test_without_a_reachable_url_the_launch_logs_why_and_sync_polls(prolific, launched):
    _spec, db, output = launched
    assert "hooks: not subscribed (the local Prolific service posts hooks to loopback" in output
    logged = _events(db, EventKind.NOTIFICATIONS)
    assert len(logged) == 1 and logged[0].payload["subscribed"] is False
    assert "loopback" in logged[0].payload["why"] and "sync polls" in logged[0].payload["why"]
    subs = requests.get(f"{prolific.url}/api/v1/hooks/subscriptions/", headers=AUTH, timeout=5)
    assert subs.json()["results"] == []


def test_deliveries_are_signed_in_order_and_retried_until_answered(prolific, tmp_path):
    from flask import Flask, request

    from harness.providers.prolific.hooks import verified
    from tests.providers.prolific.test_bad_input import study_body
    from tests.serving import ServedApp

    received: list[tuple[int, bytes, dict[str, str]]] = []
    target = Flask(__name__)

    @target.post("/h")
    def h():  # the first delivery fails, the others succeed
        received.append((len(received), request.get_data(), dict(request.headers)))
        return ("no", 500) if len(received) == 1 else ("", 204)

    with ServedApp(target) as served:
        provider = _provider(prolific.url)
        _workspace, secret = provider.subscribe(f"{served.url}/h")
        study = provider.client.call(
            "POST", "studies/", safe=False, json=study_body(total_available_places=5)
        )
        provider.client.call(
            "POST", f"studies/{study['id']}/transition/", safe=True, json={"action": "PUBLISH"}
        )
        joined = requests.post(
            f"{prolific.url}/participant/studies/{study['id']}/join",
            data={"participant_id": "P9"},
            timeout=5,
        ).json()
        requests.post(
            f"{prolific.url}/participant/submissions/{joined['submission_id']}/return", timeout=5
        ).raise_for_status()
        _wait_for(lambda: len(received) == 3)
    statuses = [json.loads(body)["status"] for _n, body, _h in received]
    assert statuses == ["ACTIVE", "ACTIVE", "RETURNED"]  # the failed one again, then in order
    for _n, body, headers in received:
        assert verified(secret, headers[TIMESTAMP], body, headers[SIGNATURE])
        assert json.loads(body)["resource_id"] == joined["submission_id"]


def test_a_returned_submission_frees_its_slot_as_soon_as_the_hook_arrives(prolific, hooked):
    from harness.store.models import Slot, SlotState

    db, tasks = hooked
    pid = "5fparticipant000000000021"
    study = requests.get(
        f"{prolific.url}/participant/studies",
        params={"participant_id": pid, "country": "United States"},
        timeout=5,
    ).json()["results"][0]
    joined = requests.post(
        f"{prolific.url}/participant/studies/{study['id']}/join",
        data={"participant_id": pid},
        timeout=5,
    ).json()
    sub = joined["submission_id"]
    assert joined["study_url"].startswith(f"{tasks}/p/small?")  # the task server's entry page
    arrived = requests.get(joined["study_url"], allow_redirects=False, timeout=10)
    assert arrived.status_code == 303, arrived.text

    def slot_state() -> SlotState | None:
        engine = make_engine(db)
        with session_scope(engine) as session:
            slot = session.exec(select(Slot).where(Slot.session_ref == sub)).first()
            state = None if slot is None else slot.state
        engine.dispose()
        return state

    assert slot_state() is SlotState.RESERVED
    requests.post(
        f"{prolific.url}/participant/submissions/{sub}/return", timeout=5
    ).raise_for_status()
    _wait_for(lambda: slot_state() is None)  # freed: open for the next participant
    assert [e.subject for e in _events(db, EventKind.SLOT_RELEASED)] == [sub]
