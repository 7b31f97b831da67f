"""HIT types and HITs: creation, checks on Question and friends, status, expiry, disposal."""

from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import (
    external_question,
    hit_params,
    html_question,
)


def error_of(info):
    return info.value.response["Error"]


def test_create_hit_returns_the_hit_as_assignable(client):
    hit = client.create_hit(**hit_params(Keywords="words", RequesterAnnotation="batch-1"))["HIT"]
    assert hit["HITStatus"] == "Assignable"
    assert hit["MaxAssignments"] == 3
    assert hit["Reward"] == "0.50"
    assert hit["NumberOfAssignmentsAvailable"] == 3
    assert hit["NumberOfAssignmentsPending"] == 0
    assert hit["NumberOfAssignmentsCompleted"] == 0
    assert hit["AutoApprovalDelayInSeconds"] == 2592000
    assert hit["RequesterAnnotation"] == "batch-1"
    assert hit["HITReviewStatus"] == "NotReviewed"
    assert len(hit["HITId"]) == 30 and hit["HITId"].isalnum()
    expected = hit["CreationTime"].timestamp() + 3600
    assert abs(hit["Expiration"].timestamp() - expected) < 2
    assert client.get_hit(HITId=hit["HITId"])["HIT"]["HITId"] == hit["HITId"]


def test_equal_hit_type_values_give_the_same_hit_type(client):
    params = dict(
        Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=300, Keywords="k"
    )
    first = client.create_hit_type(**params)["HITTypeId"]
    assert client.create_hit_type(**params)["HITTypeId"] == first
    assert client.create_hit_type(**{**params, "Reward": "0.11"})["HITTypeId"] != first


def test_create_hit_with_hit_type_uses_the_types_properties(client):
    type_id = client.create_hit_type(
        Title="typed", Description="d", Reward="0.20", AssignmentDurationInSeconds=300
    )["HITTypeId"]
    hit = client.create_hit_with_hit_type(
        HITTypeId=type_id, LifetimeInSeconds=600, MaxAssignments=2, Question=html_question()
    )["HIT"]
    assert hit["HITTypeId"] == type_id
    assert hit["Title"] == "typed"
    assert hit["Reward"] == "0.20"
    # CreateHIT with the same properties lands in the same HIT type.
    same = client.create_hit(
        Title="typed",
        Description="d",
        Reward="0.20",
        AssignmentDurationInSeconds=300,
        LifetimeInSeconds=600,
        Question=html_question(),
    )["HIT"]
    assert same["HITTypeId"] == type_id


def test_unknown_hit_type_is_refused(client):
    with pytest.raises(ClientError) as info:
        client.create_hit_with_hit_type(
            HITTypeId="NOSUCHTYPE", LifetimeInSeconds=600, Question=html_question()
        )
    assert error_of(info)["Code"] == "RequestError"
    assert "HITType NOSUCHTYPE does not exist." in error_of(info)["Message"]


def test_repeated_unique_request_token_names_the_existing_hit(client):
    hit = client.create_hit(**hit_params(UniqueRequestToken="batch-1-hit-1"))["HIT"]
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(UniqueRequestToken="batch-1-hit-1"))
    assert error_of(info)["Code"] == "RequestError"
    assert info.value.response["TurkErrorCode"] == "AWS.MechanicalTurk.HitAlreadyExists"
    assert hit["HITId"] in error_of(info)["Message"]
    assert len(client.list_hits()["HITs"]) == 1
    # The same token through CreateHITWithHITType is the same HIT request.
    with pytest.raises(ClientError):
        client.create_hit_with_hit_type(
            HITTypeId=hit["HITTypeId"],
            LifetimeInSeconds=60,
            Question=external_question(),
            UniqueRequestToken="batch-1-hit-1",
        )


def test_unique_request_token_expires_after_24_hours(mturk, client):
    client.create_hit(**hit_params(UniqueRequestToken="tok"))
    mturk.advance(24 * 3600 + 1)
    client.create_hit(**hit_params(UniqueRequestToken="tok"))
    assert len(client.list_hits()["HITs"]) == 2


@pytest.mark.parametrize(
    ("question", "detail"),
    [
        (
            "<ExternalQuestion><FrameHeight>0</FrameHeight></ExternalQuestion>",
            "<ExternalQuestion> needs an <ExternalURL>",
        ),
        (
            "<ExternalQuestion><ExternalURL>https://x.org</ExternalURL></ExternalQuestion>",
            "<ExternalQuestion> needs a <FrameHeight>",
        ),
        (external_question("http://example.org/task"), "must be an https URL"),
        ("<Question>", "not well-formed XML"),
        ("<Survey/>", "unknown root element <Survey>"),
    ],
)
def test_bad_questions_get_mturks_xml_parse_error(client, question, detail):
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(Question=question))
    assert error_of(info)["Code"] == "RequestError"
    assert info.value.response["TurkErrorCode"] == "AWS.MechanicalTurk.XMLParseError"
    assert detail in error_of(info)["Message"]


def test_http_external_url_is_allowed_on_loopback(client):
    hit = client.create_hit(**hit_params(Question=external_question("http://127.0.0.1:5000/t")))
    assert hit["HIT"]["HITStatus"] == "Assignable"


def test_question_larger_than_65535_bytes_is_refused(client):
    big = html_question("<p>" + "x" * 65535 + "</p>")
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(Question=big))
    assert error_of(info)["Code"] == "ParameterValidationError"
    assert "must not be larger than 65,535 bytes" in error_of(info)["Message"]


def test_requester_annotation_at_most_255_characters(client):
    client.create_hit(**hit_params(RequesterAnnotation="a" * 255))
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(RequesterAnnotation="a" * 256))
    assert "RequesterAnnotation" in error_of(info)["Message"]
    assert "at most 255 characters" in error_of(info)["Message"]


def test_lifetime_and_duration_ranges(client):
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(AssignmentDurationInSeconds=10))
    assert "between 30 and 31536000" in error_of(info)["Message"]


def test_list_hits_pages_with_next_token(client):
    created = [client.create_hit(**hit_params())["HIT"]["HITId"] for _ in range(5)]
    first = client.list_hits(MaxResults=2)
    assert first["NumResults"] == 2
    seen = [h["HITId"] for h in first["HITs"]]
    token = first["NextToken"]
    while token:
        page = client.list_hits(MaxResults=2, NextToken=token)
        seen += [h["HITId"] for h in page["HITs"]]
        token = page.get("NextToken")
    assert seen == created
    paginator = client.get_paginator("list_hits")
    ids = [
        h["HITId"] for p in paginator.paginate(PaginationConfig={"PageSize": 3}) for h in p["HITs"]
    ]
    assert ids == created


def test_default_page_is_ten(client):
    for _ in range(12):
        client.create_hit(**hit_params())
    page = client.list_hits()
    assert page["NumResults"] == 10 and "NextToken" in page


def test_bad_next_token(client):
    with pytest.raises(ClientError) as info:
        client.list_hits(NextToken="garbage")
    assert error_of(info)["Code"] == "ParameterValidationError"


def test_expiry_makes_an_untouched_hit_reviewable(mturk, client):
    hit_id = client.create_hit(**hit_params(LifetimeInSeconds=60))["HIT"]["HITId"]
    mturk.advance(61)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"
    reviewable = client.list_reviewable_hits()["HITs"]
    assert [h["HITId"] for h in reviewable] == [hit_id]


def test_update_expiration_in_the_past_expires_now_and_later_extends(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=0)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=time.time() + 3600)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Assignable"


def test_update_hit_review_status_moves_between_reviewable_and_reviewing(client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    with pytest.raises(ClientError) as info:
        client.update_hit_review_status(HITId=hit_id)
    assert "This operation can be called with a status of: Reviewable" in error_of(info)["Message"]
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=0)
    client.update_hit_review_status(HITId=hit_id, Revert=False)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewing"
    assert client.list_reviewable_hits(Status="Reviewing")["NumResults"] == 1
    client.update_hit_review_status(HITId=hit_id, Revert=True)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"


def test_delete_hit_only_when_reviewable_and_all_decided(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=1))["HIT"]["HITId"]
    with pytest.raises(ClientError) as info:
        client.delete_hit(HITId=hit_id)
    assert "currently in the state 'Assignable'" in error_of(info)["Message"]
    assignment_id = mturk.work(hit_id, "AWORKER1")
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"
    with pytest.raises(ClientError) as info:
        client.delete_hit(HITId=hit_id)
    assert "approve or reject every assignment" in error_of(info)["Message"]
    client.approve_assignment(AssignmentId=assignment_id)
    client.delete_hit(HITId=hit_id)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Disposed"
    assert client.list_hits()["NumResults"] == 0


def test_additional_assignments_cannot_cross_ten(client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=5))["HIT"]["HITId"]
    client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=4)
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 9
    with pytest.raises(ClientError) as info:
        client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=1)
    assert (
        info.value.response["TurkErrorCode"]
        == "AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease"
    )
    big = client.create_hit(**hit_params(MaxAssignments=10))["HIT"]["HITId"]
    client.create_additional_assignments_for_hit(HITId=big, NumberOfAdditionalAssignments=5)
    assert client.get_hit(HITId=big)["HIT"]["MaxAssignments"] == 15


def test_additional_assignments_token_is_idempotent(client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=2))["HIT"]["HITId"]
    client.create_additional_assignments_for_hit(
        HITId=hit_id, NumberOfAdditionalAssignments=1, UniqueRequestToken="ext-1"
    )
    with pytest.raises(ClientError):
        client.create_additional_assignments_for_hit(
            HITId=hit_id, NumberOfAdditionalAssignments=1, UniqueRequestToken="ext-1"
        )
    assert client.get_hit(HITId=hit_id)["HIT"]["MaxAssignments"] == 3


def test_hit_layouts_are_not_supported(client):
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(Question=None, HITLayoutId="LAYOUT1"))
    assert "HIT layouts are not supported" in error_of(info)["Message"]
