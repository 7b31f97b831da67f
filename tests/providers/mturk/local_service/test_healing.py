"""The local MTurk service heals (issue 40): a queue that cannot be reached costs each message a
bounded number of tries with a growing delay, off every request's path, and the messages are
listed and dropped through /_control; JSON null in an optional member means absent; amti's
example qualification type without a test is taken."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from harness.providers.mturk.local_service.notifications import FIRST_RETRY, MAX_TRIES
from harness.providers.mturk.local_service.validation import operation_model
from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params

DEAD_QUEUE = "http://127.0.0.1:9/123456789012/nobody-listens"  # the discard port: refused


def notification(destination: str = DEAD_QUEUE) -> dict[str, Any]:
    return {
        "Destination": destination,
        "Transport": "SQS",
        "Version": "2014-08-15",
        "EventTypes": ["AssignmentSubmitted"],
    }


def undelivered(mturk: LocalMTurk) -> list[dict[str, Any]]:
    r = mturk.session.get(f"{mturk.url}/_control/notifications")
    assert r.status_code == 200, r.text
    return list(r.json()["undelivered"])


def freeze(mturk: LocalMTurk) -> float:
    """Stop the service's clock (retries fall due only as the test moves it); its time."""
    now = mturk.now()
    mturk.control("clock", {"set": now, "frozen": True})
    return now


def until(condition: Any, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


def test_a_dead_queue_costs_each_message_one_try_not_one_per_request(mturk, client):
    now = freeze(mturk)
    for _ in range(20):
        client.send_test_event_notification(
            Notification=notification(), TestEventType="AssignmentSubmitted"
        )
    for _ in range(30):
        assert client.get_account_balance()["AvailableBalance"] == "10000.00"
    until(lambda: {m["attempts"] for m in undelivered(mturk)} == {1})
    listed = undelivered(mturk)
    assert len(listed) == 20
    assert {(m["attempts"], m["state"], m["next_try"]) for m in listed} == {
        (1, "retrying", now + FIRST_RETRY)
    }
    assert all("127.0.0.1:9" in m["last_error"] for m in listed), listed[0]


@pytest.fixture
def hanging_queue() -> Iterator[str]:
    """A queue URL on a loopback port that takes a connection and never answers (until the
    test ends)."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()
    held: list[socket.socket] = []

    def hold() -> None:
        listener.settimeout(0.1)
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/123456789012/hangs"
    done.set()
    thread.join()
    for connection in held:
        connection.close()
    listener.close()


def test_a_queue_that_never_answers_holds_up_no_request(mturk, client, hanging_queue):
    freeze(mturk)
    client.send_test_event_notification(
        Notification=notification(hanging_queue), TestEventType="AssignmentSubmitted"
    )
    # answered while the message's first try still waits on the queue: it is not yet tried
    assert [(m["attempts"], m["state"]) for m in undelivered(mturk)] == [(0, "new")]
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_a_message_is_retried_with_a_doubling_delay_then_given_up(mturk, client):
    now = freeze(mturk)
    client.send_test_event_notification(
        Notification=notification(), TestEventType="AssignmentSubmitted"
    )
    until(lambda: undelivered(mturk)[0]["attempts"] == 1)
    delays = []
    for tries in range(2, MAX_TRIES + 1):
        (message,) = undelivered(mturk)
        delays.append(message["next_try"] - now)
        mturk.advance(delays[-1])
        now += delays[-1]
        until(lambda tries=tries: undelivered(mturk)[0]["attempts"] == tries)
    assert delays == [FIRST_RETRY * 2**k for k in range(MAX_TRIES - 1)]
    (message,) = undelivered(mturk)
    assert (message["state"], message["next_try"]) == ("given up", None)
    mturk.advance(10 * delays[-1])
    assert mturk.control("deliver")["sent"] == 0
    for _ in range(5):
        client.get_account_balance()
    assert undelivered(mturk)[0]["attempts"] == MAX_TRIES


def test_undelivered_messages_are_dropped_one_or_all(mturk, client):
    freeze(mturk)
    for _ in range(3):
        client.send_test_event_notification(
            Notification=notification(), TestEventType="AssignmentSubmitted"
        )
    first, *rest = (m["seq"] for m in undelivered(mturk))
    r = mturk.session.delete(f"{mturk.url}/_control/notifications/{first}")
    assert r.json() == {"dropped": 1}
    r = mturk.session.delete(f"{mturk.url}/_control/notifications/{first}")
    assert r.status_code == 404
    assert r.json() == {"error": f"no undelivered notification {first}", "code": "NotFound"}
    assert [m["seq"] for m in undelivered(mturk)] == rest
    assert mturk.session.delete(f"{mturk.url}/_control/notifications").json() == {"dropped": 2}
    assert undelivered(mturk) == []


def test_retries_go_on_after_a_restart_and_given_up_messages_stay_given_up(tmp_path):
    service = LocalMTurk(tmp_path / "m.sqlite").start()
    client = service.client()
    now = freeze(service)
    client.send_test_event_notification(
        Notification=notification(), TestEventType="AssignmentSubmitted"
    )
    until(lambda: undelivered(service)[0]["attempts"] == 1)
    service.stop()
    again = LocalMTurk(tmp_path / "m.sqlite").start()
    try:
        assert [m["attempts"] for m in undelivered(again)] == [1]
        again.control("clock", {"set": now + FIRST_RETRY, "frozen": True})
        until(lambda: undelivered(again)[0]["attempts"] == 2)
    finally:
        again.stop()


# Members set to null in otherwise good requests of the operations that answered 500 before.
BASES = ["CreateHIT", "CreateHITType", "CreateHITWithHITType", "UpdateQualificationType"]


def optional_members(operation: str) -> list[str]:
    shape = operation_model(operation).input_shape
    return [m for m in shape.members if m not in shape.required_members]


def base_request(operation: str, client: Any) -> dict[str, Any]:
    hit = hit_params()
    if operation == "CreateHIT":
        return hit
    type_fields = ("AssignmentDurationInSeconds", "Reward", "Title", "Description")
    if operation == "CreateHITType":
        return {k: hit[k] for k in type_fields}
    if operation == "CreateHITWithHITType":
        type_id = client.create_hit_type(**{k: hit[k] for k in type_fields})["HITTypeId"]
        return {"HITTypeId": type_id, "LifetimeInSeconds": 3600, "Question": hit["Question"]}
    created = client.create_qualification_type(
        Name=f"type-{time.monotonic_ns()}", Description="d", QualificationTypeStatus="Active"
    )
    return {"QualificationTypeId": created["QualificationType"]["QualificationTypeId"]}


def answer(mturk: LocalMTurk, operation: str, body: dict[str, Any]) -> tuple[int, str | None]:
    r = mturk.raw(operation, json.dumps(body))
    return r.status_code, r.json().get("__type")


@pytest.mark.parametrize("operation", BASES)
def test_null_in_an_optional_member_means_absent(mturk, client, operation):
    for member in optional_members(operation):
        body = {k: v for k, v in base_request(operation, client).items() if k != member}
        without = answer(mturk, operation, body)
        body = {k: v for k, v in base_request(operation, client).items() if k != member}
        with_null = answer(mturk, operation, {**body, member: None})
        assert with_null == without, member
        assert with_null[0] != 500, member


def test_null_in_the_notification_settings_and_a_disassociation_means_absent(mturk, client):
    type_id = client.create_hit_type(
        AssignmentDurationInSeconds=600, Reward="0.10", Title="t", Description="d"
    )["HITTypeId"]
    for member in ("Notification", "Active"):
        got = answer(mturk, "UpdateNotificationSettings", {"HITTypeId": type_id, member: None})
        assert got == answer(mturk, "UpdateNotificationSettings", {"HITTypeId": type_id})
        assert got[0] != 500
    qual = client.create_qualification_type(
        Name="granted", Description="d", QualificationTypeStatus="Active"
    )["QualificationType"]["QualificationTypeId"]
    client.associate_qualification_with_worker(
        QualificationTypeId=qual, WorkerId="AWORKER1", IntegerValue=1, SendNotification=False
    )
    body = {"QualificationTypeId": qual, "WorkerId": "AWORKER1", "Reason": None}
    assert answer(mturk, "DisassociateQualificationFromWorker", body) == (200, None)
    listed = client.list_workers_with_qualification_type(QualificationTypeId=qual)
    assert listed["Qualifications"] == []


def test_amtis_example_qualification_type_without_a_test_is_taken(client):
    # amti's examples/qualification-type-without-test/definition/qualificationtypeproperties.json
    example = {
        "Name": "Qualification Type Without a Test Example",
        "Keywords": "example, test, sandbox",
        "Description": "An example qualification type.",
        "QualificationTypeStatus": "Active",
        "RetryDelayInSeconds": 86400,
        "TestDurationInSeconds": 3600,
    }
    created = client.create_qualification_type(**example)["QualificationType"]
    got = client.get_qualification_type(QualificationTypeId=created["QualificationTypeId"])
    assert got["QualificationType"]["Name"] == example["Name"]
    assert "Test" not in got["QualificationType"]


def test_messages_an_older_service_kept_retrying_get_one_last_try_after_a_restart(tmp_path):
    """A file from before retries were bounded holds messages tried on every request; the
    upgraded service tries each once more, then gives it up, and requests go on untouched."""
    import sqlite3

    db = tmp_path / "m.sqlite"
    service = LocalMTurk(db).start()
    freeze(service)
    service.client().send_test_event_notification(
        Notification=notification(), TestEventType="AssignmentSubmitted"
    )
    service.stop()
    with sqlite3.connect(db) as conn:  # as the older service left it: tried 500 times
        conn.execute("UPDATE outbox SET attempts = 500, next_try = 0, last_error = NULL")
    conn.close()
    again = LocalMTurk(db).start()
    try:
        until(lambda: undelivered(again)[0]["state"] == "given up")
        assert undelivered(again)[0]["attempts"] == 501
        assert again.client().get_account_balance()["AvailableBalance"] == "10000.00"
    finally:
        again.stop()
