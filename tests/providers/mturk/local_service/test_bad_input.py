"""Issue 21's reproducers against the local MTurk service: every bad input gets MTurk's error
shape (requester side) or a JSON 400 naming what is wrong (worker and control sides); nothing
is stored, and nothing poisons later requests, even after a restart."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
import requests

from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params

DEEP = "[" * 100_000 + "]" * 100_000


def refused(r: requests.Response, status: int = 400) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"].startswith("application/"), r.headers["Content-Type"]
    return r.json()


def test_a_list_where_the_worker_id_belongs_is_a_json_400(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    for r in (
        mturk.session.post(
            f"{mturk.url}/worker/hits/{hit_id}/accept", json={"workerId": ["A1", "A2"]}
        ),
        mturk.session.get(f"{mturk.url}/worker/messages", json={"workerId": ["A1", "A2"]}),
    ):
        assert refused(r) == {
            "code": "BadParameter",
            "error": "workerId must be an MTurk worker id: A followed by capitals and digits; "
            "got ['A1', 'A2']",
        }
    assert client.get_hit(HITId=hit_id)["HIT"]["NumberOfAssignmentsPending"] == 0


def test_a_number_too_large_for_the_database_is_a_json_400(mturk):
    huge = "1180591620717411303424"
    assert refused(mturk.get("/worker/hits", workerId="A", numberApproved=huge))["code"] == (
        "BadParameter"
    )
    assert refused(mturk.get("/worker/hits", workerId="AW1", numberApproved=huge)) == {
        "code": "BadParameter",
        "error": f"numberApproved must be a whole number from 0 to 2147483647; got '{huge}'",
    }
    assert refused(mturk.get("/worker/hits", workerId="AW1", percentApproved="٥"))["error"] == (
        "percentApproved must be a whole number from 0 to 100; got '٥'"
    )


def test_clock_advance_that_is_not_a_number_is_a_json_400(mturk):
    before = mturk.now()
    r = mturk.session.post(f"{mturk.url}/_control/clock", json={"advance": "x"})
    assert refused(r) == {
        "code": "BadRequest",
        "error": "advance must be a number of seconds, got 'x'",
    }
    assert mturk.now() - before < 60


def test_a_balance_of_1e400_is_a_json_400(mturk, client):
    r = mturk.session.post(f"{mturk.url}/_control/balance", json={"balance": "1e400"})
    assert refused(r)["error"] == "balance: not a currency amount such as \"0.50\": '1e400'"
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_nan_is_refused_and_never_persisted(tmp_path):
    db = tmp_path / "m.sqlite"
    service = LocalMTurk(db).start()
    try:
        r = service.session.post(
            f"{service.url}/_control/clock",
            data='{"advance": NaN}',
            headers={"Content-Type": "application/json"},
        )
        assert refused(r)["error"] == "NaN is not a JSON number"
    finally:
        service.stop()
    again = LocalMTurk(db).start()
    try:
        with pytest.raises(again.client().exceptions.RequestError) as info:
            again.client().get_hit(HITId="NOSUCH")
        assert "Hit NOSUCH does not exist." in str(info.value)
    finally:
        again.stop()


def test_a_clock_poisoned_by_an_older_version_is_reset_at_start(tmp_path, caplog):
    """A file where an older version stored `{"advance": NaN}`: every requester error was an
    HTML 500, even after a restart. Now the service starts, resets the clock and warns."""
    db = tmp_path / "m.sqlite"
    LocalMTurk(db).start().stop()
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('clock', ?)",
            (json.dumps({"offset": float("nan"), "frozen_at": None}),),
        )
    conn.close()
    service = LocalMTurk(db).start()
    try:
        r = service.raw("GetHIT", json.dumps({"HITId": "NOSUCH"}))
        assert refused(r)["__type"] == "RequestError"
        assert abs(service.now() - time.time()) < 60
    finally:
        service.stop()
    assert "the saved clock was unusable and is reset to real time" in caplog.text


def test_negative_latency_is_refused_and_calls_keep_working(mturk, client):
    r = mturk.session.post(f"{mturk.url}/_control/faults", json={"latency_ms": -1})
    assert refused(r)["error"] == "latency_ms must be between 0 and 60000, got -1"
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e400", '"1"', "true"])
def test_fault_switch_values_that_are_not_finite_numbers_are_refused(mturk, value):
    r = mturk.session.post(
        f"{mturk.url}/_control/faults",
        data=f'{{"throttle_share": {value}}}',
        headers={"Content-Type": "application/json"},
    )
    refused(r)


def test_a_100k_deep_body_is_refused_on_every_side(mturk):
    requester = refused(mturk.raw("GetAccountBalance", DEEP))
    assert requester == {
        "__type": "SerializationException",
        "Message": "The request body is refused: the JSON body is nested more than 32 levels deep",
    }
    headers = {"Content-Type": "application/json"}
    worker = mturk.session.post(f"{mturk.url}/worker/hits/X/accept", data=DEEP, headers=headers)
    assert refused(worker) == {
        "code": "BadBody",
        "error": "the JSON body is nested more than 32 levels deep",
    }
    control = mturk.session.post(f"{mturk.url}/_control/clock", data=DEEP, headers=headers)
    assert refused(control)["error"] == "the JSON body is nested more than 32 levels deep"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"HITId": NaN}', "The request body is refused: NaN is not a JSON number"),
        ('{"MaxResults": 1e400}', "The request body is refused: the number 1e400 is too large"),
        (
            '{"MaxResults": 99999999999}',
            "Numeric value (99999999999) out of range of integer at 'maxResults'",
        ),
        (
            '{"HITId": "\\ud800"}',
            "Invalid UTF-8 (a lone surrogate) at 'hITId'",
        ),
    ],
)
def test_requester_bodies_with_unrepresentable_values_are_serialization_errors(
    mturk, body, message
):
    operation = "ListHITs" if "MaxResults" in body else "GetHIT"
    assert refused(mturk.raw(operation, body)) == {
        "__type": "SerializationException",
        "Message": message,
    }


def test_a_reward_of_1e400_is_a_parameter_validation_error(mturk):
    client = mturk.client(parameter_validation=False)
    with pytest.raises(client.exceptions.ClientError) as info:
        client.create_hit(**hit_params(Reward="1e400"))
    assert info.value.response["Error"]["Code"] == "ValidationException"  # the model's pattern
    r = mturk.raw("CreateHIT", json.dumps(hit_params(Reward="99999999999999999999999999.00")))
    assert refused(r)["__type"] == "ParameterValidationError"


def test_expire_at_beyond_year_9999_is_refused(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    r = mturk.raw("UpdateExpirationForHIT", json.dumps({"HITId": hit_id, "ExpireAt": 1e300}))
    assert refused(r) == {
        "__type": "SerializationException",
        "Message": "Timestamp 1e+300 at 'expireAt' is not between 1970 and 9999",
    }


def test_the_hit_list_says_a_held_hit_cannot_be_accepted(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=3))["HIT"]["HITId"]
    assignment_id = mturk.accept(hit_id, "AW1")["AssignmentId"]
    [listed] = mturk.get("/worker/hits", workerId="AW1").json()["HITs"]
    assert (listed["canAccept"], listed["heldAssignmentId"]) == (False, assignment_id)
    assert mturk.get("/worker/hits", workerId="AW1", acceptable="1").json()["HITs"] == []
    mturk.submit(assignment_id, answer="1")
    [after] = mturk.get("/worker/hits", workerId="AW1").json()["HITs"]
    assert after["canAccept"] is False  # one assignment per worker per HIT
    [other] = mturk.get("/worker/hits", workerId="AW2").json()["HITs"]
    assert other["canAccept"] is True and "heldAssignmentId" not in other


def test_a_control_character_in_an_answer_is_refused_not_stored(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    assignment_id = mturk.accept(hit_id, "AW1")["AssignmentId"]
    r = mturk.post("/mturk/externalSubmit", assignmentId=assignment_id, answer="7\x00")
    assert refused(r) == {
        "code": "BadAnswer",
        "error": "the answer field 'answer' holds a control character",
    }
    mturk.submit(assignment_id, answer="7")
    assert (
        "<FreeText>7</FreeText>"
        in client.list_assignments_for_hit(HITId=hit_id)["Assignments"][0]["Answer"]
    )


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/no/such/path", 404, "NotFound"),
        ("get", "/worker/hits/X/accept", 405, "MethodNotAllowed"),
        ("get", "/", 405, "MethodNotAllowed"),
    ],
)
def test_routing_errors_are_json(mturk, method, path, status, code):
    r = getattr(mturk.session, method)(mturk.url + path)
    body = refused(r, status)
    assert body.get("code", body.get("__type")) == code


def test_a_body_over_2_mib_is_a_json_413(mturk):
    r = mturk.raw("GetAccountBalance", b"{" + b" " * (3 * 1024 * 1024) + b"}")
    assert refused(r, 413)["__type"] == "RequestEntityTooLarge"
