"""The wire protocol: AWS JSON 1.1, model validation, MTurk's error shapes."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import hit_params


def test_sandbox_balance_is_reported_like_the_sandbox(client):
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_unknown_hit_is_a_request_error_naming_it(client):
    with pytest.raises(ClientError) as info:
        client.get_hit(HITId="NOSUCHHIT")
    error = info.value.response["Error"]
    assert error["Code"] == "RequestError"
    assert error["Message"].startswith("Hit NOSUCHHIT does not exist. (")
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert info.value.response["TurkErrorCode"] == "AWS.MechanicalTurk.HITDoesNotExist"


def test_missing_required_member_gets_awss_validation_message(mturk):
    client = mturk.client(parameter_validation=False)
    with pytest.raises(ClientError) as info:
        client.reject_assignment(AssignmentId="ABC")
    error = info.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert error["Message"] == (
        "1 validation error detected: Value null at 'requesterFeedback' failed to satisfy "
        "constraint: Member must not be null"
    )


def test_every_constraint_violation_is_reported_at_once(mturk):
    r = mturk.raw(
        "CreateHIT",
        json.dumps({"Title": "t", "Reward": "abc", "LifetimeInSeconds": 60, "Description": "d"}),
    )
    assert r.status_code == 400
    body = r.json()
    assert body["__type"] == "ValidationException"
    assert body["Message"].startswith("2 validation errors detected: ")
    assert "Value null at 'assignmentDurationInSeconds'" in body["Message"]
    assert (
        "Value 'abc' at 'reward' failed to satisfy constraint: Member must satisfy regular "
        "expression pattern: ^[0-9]+(\\.)?[0-9]{0,2}$"
    ) in body["Message"]


def test_enum_and_nested_list_members_are_checked(mturk):
    params = hit_params(
        QualificationRequirements=[{"QualificationTypeId": "X", "Comparator": "Bigger"}]
    )
    r = mturk.raw("CreateHIT", json.dumps(params))
    assert r.json()["__type"] == "ValidationException"
    assert "at 'qualificationRequirements.1.member.comparator'" in r.json()["Message"]
    assert "Member must satisfy enum value set: [LessThan," in r.json()["Message"]


def test_wrong_json_type_is_a_serialization_exception(mturk):
    r = mturk.raw("GetHIT", json.dumps({"HITId": 12}))
    assert r.status_code == 400
    assert r.json()["__type"] == "SerializationException"


def test_id_pattern_from_the_model_is_enforced(mturk):
    client = mturk.client(parameter_validation=False)
    with pytest.raises(ClientError) as info:
        client.get_hit(HITId="lower-case")
    assert info.value.response["Error"]["Code"] == "ValidationException"
    assert "Member must satisfy regular expression pattern: ^[A-Z0-9]+$" in str(info.value)


def test_unknown_operation(mturk):
    r = mturk.raw("MakeCoffee", "{}")
    assert r.status_code == 400
    assert r.json()["__type"] == "UnknownOperationException"


def test_malformed_json_body(mturk):
    r = mturk.raw("GetAccountBalance", b"{not json")
    assert r.json()["__type"] == "SerializationException"


def test_responses_carry_the_json_content_type_and_a_request_id(mturk):
    r = mturk.raw("GetAccountBalance", "{}")
    assert r.headers["Content-Type"] == "application/x-amz-json-1.1"
    assert r.headers["x-amzn-RequestId"]
