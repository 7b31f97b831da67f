"""The MTurk provider's requests, checked by botocore's Stubber against the real MTurk model,
and the client factory's endpoints and credentials."""

from __future__ import annotations

import json
import random
from datetime import UTC, timedelta
from decimal import Decimal

import pytest
from botocore.stub import Stubber

from harness.errors import InputError, PlatformError
from harness.platform.contract import SubmissionState, WorkSettings, WorkUnit
from harness.providers.mturk import MTurkProvider, make_client
from harness.providers.mturk.client import PRODUCTION_ENDPOINT, SANDBOX_ENDPOINT, endpoint_for
from harness.providers.mturk.retry import Backoff
from tests.clock import minutes_ago

HIT_ID = "3ABCDEFGHIJKLMNOPQRSTUVWXYZ012"
ASSIGNMENT = "3ZYXWVUTSRQPONMLKJIHGFEDCBA987"
UNIT = WorkUnit(
    index=4,
    question="<ExternalQuestion/>",
    assignments=3,
    lifetime=3600,
    token="harness-abc-4",
    label="harness study=s launch=x hit=4",
)


def hit(**extra):
    return {
        "HITId": HIT_ID,
        "HITStatus": "Assignable",
        "MaxAssignments": 3,
        "RequesterAnnotation": UNIT.label,
        "Expiration": minutes_ago(-3 * 24 * 60),
        **extra,
    }


def assignment(status):
    return {
        "AssignmentId": ASSIGNMENT,
        "WorkerId": "AWORKER1",
        "HITId": HIT_ID,
        "AssignmentStatus": status,
        "Answer": "<QuestionFormAnswers/>",
    }


@pytest.fixture
def stubbed():
    client = make_client("local", "http://127.0.0.1:9")
    provider = MTurkProvider(client, "local", Backoff(sleep=lambda _s: None, rng=random.Random(0)))
    with Stubber(client) as stub:
        yield provider, stub
        stub.assert_no_pending_responses()


def test_a_hit_is_created_with_its_token_annotation_and_type(stubbed):
    provider, stub = stubbed
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": hit()},
        {
            "HITTypeId": "TYPE1",
            "MaxAssignments": 3,
            "LifetimeInSeconds": 3600,
            "Question": "<ExternalQuestion/>",
            "RequesterAnnotation": UNIT.label,
            "UniqueRequestToken": "harness-abc-4",
        },
    )
    published = provider.publish("TYPE1", UNIT)
    assert (published.platform_id, published.label, published.assignments) == (
        HIT_ID,
        UNIT.label,
        3,
    )


def test_a_repeated_token_returns_the_hit_named_in_the_error(stubbed):
    provider, stub = stubbed
    stub.add_client_error(
        "create_hit_with_hit_type",
        service_error_code="RequestError",
        service_message=f"There is already a HIT with the same UniqueRequestToken. ({HIT_ID})",
        response_meta={},
        modeled_fields={"TurkErrorCode": "AWS.MechanicalTurk.HitAlreadyExists"},
    )
    stub.add_response("get_hit", {"HIT": hit()}, {"HITId": HIT_ID})
    assert provider.publish("TYPE1", UNIT).platform_id == HIT_ID


def test_a_repeated_token_without_an_id_is_found_by_its_annotation(stubbed):
    provider, stub = stubbed
    stub.add_client_error(
        "create_hit_with_hit_type",
        service_error_code="RequestError",
        service_message="There is already a HIT which exists with the same UniqueRequestToken.",
        modeled_fields={"TurkErrorCode": "AWS.MechanicalTurk.HitAlreadyExists"},
    )
    other = hit(HITId="3OTHERHIT0000000000000000000AA", RequesterAnnotation="someone else")
    stub.add_response("list_hits", {"HITs": [other, hit()]}, {"MaxResults": 100})
    assert provider.publish("TYPE1", UNIT).platform_id == HIT_ID


def test_an_approve_that_took_effect_before_a_fault_is_not_sent_again(stubbed):
    provider, stub = stubbed
    stub.add_client_error(
        "approve_assignment", service_error_code="ServiceUnavailable", http_status_code=503
    )
    stub.add_response(
        "get_assignment",
        {"Assignment": assignment("Approved"), "HIT": hit()},
        {"AssignmentId": ASSIGNMENT},
    )
    provider.approve(ASSIGNMENT)  # no second ApproveAssignment is stubbed: none is sent


def test_an_approve_that_did_not_take_effect_is_sent_again(stubbed):
    provider, stub = stubbed
    stub.add_client_error(
        "approve_assignment", service_error_code="ServiceUnavailable", http_status_code=503
    )
    stub.add_response(
        "get_assignment",
        {"Assignment": assignment("Submitted"), "HIT": hit()},
        {"AssignmentId": ASSIGNMENT},
    )
    stub.add_response("approve_assignment", {}, {"AssignmentId": ASSIGNMENT})
    provider.approve(ASSIGNMENT)


def test_a_reject_the_platform_refuses_is_an_error_that_names_it(stubbed):
    provider, stub = stubbed
    stub.add_client_error(
        "reject_assignment",
        service_error_code="RequestError",
        service_message="This operation can be called with a status of: Submitted",
    )
    stub.add_response(
        "get_assignment",
        {"Assignment": assignment("Approved"), "HIT": hit()},
        {"AssignmentId": ASSIGNMENT},
    )
    with pytest.raises(PlatformError, match=f"MTurk refused to reject {ASSIGNMENT}"):
        provider.reject(ASSIGNMENT, "feedback")


def test_a_bonus_carries_its_token_and_a_duplicate_is_done(stubbed):
    provider, stub = stubbed
    params = {
        "WorkerId": "AWORKER1",
        "AssignmentId": ASSIGNMENT,
        "BonusAmount": "0.25",
        "Reason": "careful",
        "UniqueRequestToken": "tok",
    }
    stub.add_response("send_bonus", {}, params)
    stub.add_client_error(
        "send_bonus",
        service_error_code="RequestError",
        modeled_fields={"TurkErrorCode": "AWS.MechanicalTurk.DuplicateRequest"},
        expected_params=params,
    )
    provider.bonus("AWORKER1", ASSIGNMENT, Decimal("0.25"), "careful", "tok")
    provider.bonus("AWORKER1", ASSIGNMENT, Decimal("0.25"), "careful", "tok")


def test_the_hit_type_carries_every_requirement(stubbed):
    provider, stub = stubbed
    settings = WorkSettings(
        title="t",
        description="d",
        keywords=["a", "b"],
        reward=Decimal("0.75"),
        assignment_duration=2700,
        lifetime=3600,
        auto_approval_delay=259200,
        countries=["US"],
        min_approval_rate=98,
        min_approved=1000,
    )
    stub.add_response(
        "create_hit_type",
        {"HITTypeId": "TYPE1"},
        {
            "Title": "t",
            "Description": "d",
            "Keywords": "a, b",
            "Reward": "0.75",
            "AssignmentDurationInSeconds": 2700,
            "AutoApprovalDelayInSeconds": 259200,
            "QualificationRequirements": [
                {
                    "QualificationTypeId": "00000000000000000071",
                    "Comparator": "In",
                    "LocaleValues": [{"Country": "US"}],
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                },
                {
                    "QualificationTypeId": "000000000000000000L0",
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [98],
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                },
                {
                    "QualificationTypeId": "00000000000000000040",
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [1000],
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                },
                {
                    "QualificationTypeId": "3EXCLUDE",
                    "Comparator": "DoesNotExist",
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                },
            ],
        },
    )
    prepared = provider.prepare("s x", settings, "3EXCLUDE")
    assert (prepared.work_type_id, prepared.exclude_ref, prepared.created) == (
        "TYPE1",
        "3EXCLUDE",
        [],
    )


def test_an_arms_hit_type_is_closed_to_the_other_arms_groups(stubbed):
    provider, stub = stubbed
    settings = WorkSettings(
        title="t",
        description="d",
        keywords=[],
        reward=Decimal("0.20"),
        assignment_duration=600,
        lifetime=3600,
        auto_approval_delay=3600,
        keep_out=["3GROUPA", "3GROUPC"],
    )
    closed = [
        {
            "QualificationTypeId": q,
            "Comparator": "DoesNotExist",
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        }
        for q in ("3EXCLUDE", "3GROUPA", "3GROUPC")
    ]
    stub.add_response(
        "create_hit_type",
        {"HITTypeId": "TYPEB"},
        {
            "Title": "t",
            "Description": "d",
            "Reward": "0.20",
            "AssignmentDurationInSeconds": 600,
            "AutoApprovalDelayInSeconds": 3600,
            "QualificationRequirements": closed,
        },
    )
    assert provider.prepare("s x", settings, "3EXCLUDE").work_type_id == "TYPEB"


def test_a_group_found_after_a_lost_answer_is_not_made_twice(stubbed):
    provider, stub = stubbed
    name = "harness group b s x"
    made = {
        "Name": name,
        "Description": "Workers of group b of study s x: they take that group's HITs only.",
        "QualificationTypeStatus": "Active",
    }
    stub.add_client_error(
        "create_qualification_type",
        "ServiceUnavailable",
        http_status_code=503,
        expected_params=made,
    )
    stub.add_response(
        "list_qualification_types",
        {"QualificationTypes": [{"QualificationTypeId": "3GROUPB", "Name": name}]},
        {"Query": name, "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100},
    )
    assert provider.make_group("s x", "b") == "3GROUPB"


def test_joining_a_group_once_is_one_call_and_its_failure_an_error(stubbed):
    provider, stub = stubbed
    grant = {
        "QualificationTypeId": "3GROUPB",
        "WorkerId": "AW1",
        "IntegerValue": 1,
        "SendNotification": False,
    }
    stub.add_response("associate_qualification_with_worker", {}, grant)
    provider.join_group("3GROUPB", "AW1", once=True)
    stub.add_client_error(
        "associate_qualification_with_worker",
        "ServiceUnavailable",
        http_status_code=503,
        expected_params=grant,
    )
    with pytest.raises(PlatformError, match="MTurk refused to give worker AW1 the qualification"):
        provider.join_group("3GROUPB", "AW1", once=True)  # a waiting worker: not retried
    stub.add_client_error(
        "associate_qualification_with_worker",
        "ServiceUnavailable",
        http_status_code=503,
        expected_params=grant,
    )
    stub.add_response("associate_qualification_with_worker", {}, grant)
    provider.join_group("3GROUPB", "AW1")  # sync: retried (setting a value is safe to repeat)


def test_submissions_are_listed_from_every_page(stubbed):
    provider, stub = stubbed
    wanted = {
        "HITId": HIT_ID,
        "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
        "MaxResults": 100,
    }
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": [assignment("Submitted")], "NextToken": "p2"},
        wanted,
    )
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": [assignment("Approved")]},
        {**wanted, "NextToken": "p2"},
    )
    states = [s.state for s in provider.submissions(HIT_ID)]
    assert states == [SubmissionState.SUBMITTED, SubmissionState.APPROVED]


def test_verification_lists_a_short_page_in_one_call_and_follows_a_full_one(stubbed):
    """A page shorter than MaxResults ends the listing verification reads (MTurk's NextToken
    with it is not followed); a full page's NextToken is."""
    provider, stub = stubbed
    wanted = {
        "HITId": HIT_ID,
        "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
        "MaxResults": 100,
    }
    short = {"Assignments": [assignment("Submitted")], "NextToken": "p2"}
    stub.add_response("list_assignments_for_hit", short, wanted)
    assert [s.state for s in provider.listed_submissions(HIT_ID)] == [SubmissionState.SUBMITTED]
    stub.assert_no_pending_responses()
    full = {"Assignments": [assignment("Submitted")] * 100, "NextToken": "p2"}
    stub.add_response("list_assignments_for_hit", full, wanted)
    stub.add_response("list_assignments_for_hit", short, {**wanted, "NextToken": "p2"})
    assert len(provider.listed_submissions(HIT_ID)) == 101
    stub.assert_no_pending_responses()


def test_targets_have_their_own_endpoints():
    assert endpoint_for("sandbox") == SANDBOX_ENDPOINT
    assert endpoint_for("production") == PRODUCTION_ENDPOINT
    assert make_client("sandbox").meta.endpoint_url == SANDBOX_ENDPOINT
    assert make_client("production").meta.endpoint_url == PRODUCTION_ENDPOINT
    with pytest.raises(InputError, match="--endpoint-url is for --target local only"):
        endpoint_for("production", "http://127.0.0.1:8765")


def test_the_local_endpoint_comes_from_the_option_the_environment_or_the_default(monkeypatch):
    monkeypatch.delenv("HARNESS_MTURK_ENDPOINT", raising=False)
    assert endpoint_for("local") == "http://127.0.0.1:8765"
    monkeypatch.setenv("HARNESS_MTURK_ENDPOINT", "http://127.0.0.1:9999")
    assert endpoint_for("local") == "http://127.0.0.1:9999"
    assert endpoint_for("local", "http://127.0.0.1:7777") == "http://127.0.0.1:7777"


def test_sandbox_credentials_come_from_the_aws_chain_not_from_harness(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFROMENV")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    sandbox = make_client("sandbox")
    assert sandbox._request_signer._credentials.access_key == "AKIDFROMENV"
    local = make_client("local")
    assert local._request_signer._credentials.access_key == "local"


def test_missing_credentials_say_how_to_give_them(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    provider = MTurkProvider(make_client("sandbox"), "sandbox")
    with pytest.raises(PlatformError, match="no AWS credentials found: set AWS_PROFILE"):
        provider.balance()


def test_answer_timestamps_are_the_instants_botocore_reads_in_utc():
    from botocore.parsers import create_parser

    client = make_client("local", "http://127.0.0.1:9")
    shape = client.meta.service_model.operation_model("GetAssignment").output_shape
    body = {
        "Assignment": {
            "AssignmentId": ASSIGNMENT,
            "SubmitTime": 1795000000.25,
            "AcceptTime": "2026-11-24T10:00:00Z",
        }
    }
    response = {"status_code": 200, "headers": {}, "body": json.dumps(body).encode()}
    parsers = client._endpoint._response_parser_factory  # what reads every answer
    ours = parsers.create_parser("json").parse(response, shape)["Assignment"]
    botocores = create_parser("json").parse(response, shape)["Assignment"]
    for name in ("SubmitTime", "AcceptTime"):
        assert ours[name] == botocores[name]
        assert ours[name].utcoffset() == timedelta(0)
    assert ours["SubmitTime"].tzinfo is UTC


def test_a_message_is_one_notify_workers_call_and_a_failure_names_the_worker(stubbed):
    provider, stub = stubbed
    sent = {"Subject": "About HIT 3", "MessageText": "Thanks!", "WorkerIds": ["AWORKER1"]}
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": []}, sent)
    provider.message("AWORKER1", "About HIT 3", "Thanks!", None)
    failure = {
        "NotifyWorkersFailureCode": "HardFailure",
        "NotifyWorkersFailureMessage": "the worker is unknown.",
        "WorkerId": "AWORKER1",
    }
    stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": [failure]}, sent)
    with pytest.raises(PlatformError) as info:
        provider.message("AWORKER1", "About HIT 3", "Thanks!", None)
    assert str(info.value) == "MTurk did not message worker AWORKER1: the worker is unknown."
