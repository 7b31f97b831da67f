"""Notifications into SQS (moto's in-process SQS; the MTurk client passes through to loopback)."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from tests.platform.factories import hit_params

ALL_EVENTS = [
    "AssignmentAccepted",
    "AssignmentSubmitted",
    "AssignmentReturned",
    "AssignmentAbandoned",
    "AssignmentApproved",
    "AssignmentRejected",
    "HITReviewable",
    "HITExpired",
]


@pytest.fixture
def sqs():
    with mock_aws():
        yield boto3.client("sqs", region_name="us-east-1")


def drain(sqs, queue_url):
    """Every message in the queue, de-duplicated on EventDocId as MTurk advises."""
    docs = {}
    while True:
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)
        messages = got.get("Messages", [])
        if not messages:
            return list(docs.values())
        for m in messages:
            doc = json.loads(m["Body"])
            docs.setdefault(doc["EventDocId"], doc)
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])


def events(docs):
    return [(e["EventType"], e.get("AssignmentId")) for d in docs for e in d["Events"]]


def subscribe(client, sqs, hit_type_id, event_types=ALL_EVENTS):
    queue_url = sqs.create_queue(QueueName="mturk-events")["QueueUrl"]
    client.update_notification_settings(
        HITTypeId=hit_type_id,
        Notification={
            "Destination": queue_url,
            "Transport": "SQS",
            "Version": "2014-08-15",
            "EventTypes": event_types,
        },
        Active=True,
    )
    return queue_url


def test_assignment_and_hit_events_arrive_in_mturks_format(sqs, mturk, client):
    hit = client.create_hit(**hit_params(MaxAssignments=2))["HIT"]
    queue = subscribe(client, sqs, hit["HITTypeId"])
    hit_id = hit["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    returned = mturk.accept(hit_id, "AWORKER2")["AssignmentId"]
    mturk.post(f"/worker/assignments/{returned}/return")
    b = mturk.work(hit_id, "AWORKER3")
    client.approve_assignment(AssignmentId=a)
    client.reject_assignment(AssignmentId=b, RequesterFeedback="no")
    docs = drain(sqs, queue)
    assert events(docs) == [
        ("AssignmentAccepted", a),
        ("AssignmentSubmitted", a),
        ("AssignmentAccepted", returned),
        ("AssignmentReturned", returned),
        ("AssignmentAccepted", b),
        ("AssignmentSubmitted", b),
        ("HITReviewable", None),
        ("AssignmentApproved", a),
        ("AssignmentRejected", b),
    ]
    doc = docs[0]
    assert set(doc) == {"Events", "EventDocId", "SourceAccount", "CustomerId", "EventDocVersion"}
    assert doc["EventDocVersion"] == "2014-08-15"
    event = doc["Events"][0]
    assert event["HITId"] == hit_id and event["HITTypeId"] == hit["HITTypeId"]
    assert event["EventTimestamp"].endswith("Z")


def test_expiry_abandonment_and_auto_approval_events(sqs, mturk, client):
    hit = client.create_hit(
        **hit_params(MaxAssignments=2, LifetimeInSeconds=900, AutoApprovalDelayInSeconds=60)
    )["HIT"]
    queue = subscribe(client, sqs, hit["HITTypeId"])
    done = mturk.work(hit["HITId"], "AWORKER1")
    left = mturk.accept(hit["HITId"], "AWORKER2")["AssignmentId"]
    mturk.advance(1000)
    client.get_hit(HITId=hit["HITId"])
    got = events(drain(sqs, queue))
    assert got[:3] == [
        ("AssignmentAccepted", done),
        ("AssignmentSubmitted", done),
        ("AssignmentAccepted", left),
    ]
    assert sorted(got[3:], key=str) == sorted(
        [
            ("AssignmentAbandoned", left),
            ("AssignmentApproved", done),
            ("HITExpired", None),
            ("HITReviewable", None),
        ],
        key=str,
    )


def test_only_the_requested_event_types_are_sent(sqs, mturk, client):
    hit = client.create_hit(**hit_params())["HIT"]
    queue = subscribe(client, sqs, hit["HITTypeId"], ["AssignmentSubmitted"])
    a = mturk.work(hit["HITId"], "AWORKER1")
    assert events(drain(sqs, queue)) == [("AssignmentSubmitted", a)]


def test_inactive_notification_sends_nothing(sqs, mturk, client):
    hit = client.create_hit(**hit_params())["HIT"]
    queue = subscribe(client, sqs, hit["HITTypeId"])
    client.update_notification_settings(HITTypeId=hit["HITTypeId"], Active=False)
    mturk.work(hit["HITId"], "AWORKER1")
    assert drain(sqs, queue) == []


def test_send_test_event_notification(sqs, client):
    queue = sqs.create_queue(QueueName="test-events")["QueueUrl"]
    client.send_test_event_notification(
        Notification={
            "Destination": queue,
            "Transport": "SQS",
            "Version": "2014-08-15",
            "EventTypes": ["AssignmentSubmitted"],
        },
        TestEventType="AssignmentSubmitted",
    )
    assert [e[0] for e in events(drain(sqs, queue))] == ["AssignmentSubmitted"]


def test_undeliverable_messages_are_retried(sqs, mturk, client):
    hit = client.create_hit(**hit_params())["HIT"]
    queue = subscribe(client, sqs, hit["HITTypeId"], ["AssignmentAccepted"])
    sqs.delete_queue(QueueUrl=queue)
    a = mturk.accept(hit["HITId"], "AWORKER1")["AssignmentId"]
    assert mturk.control("deliver")["sent"] == 0
    sqs.create_queue(QueueName="mturk-events")
    assert mturk.control("deliver")["sent"] == 1
    assert events(drain(sqs, queue)) == [("AssignmentAccepted", a)]


def test_email_transport_is_refused(client):
    type_id = client.create_hit(**hit_params())["HIT"]["HITTypeId"]
    with pytest.raises(ClientError) as info:
        client.update_notification_settings(
            HITTypeId=type_id,
            Notification={
                "Destination": "me@example.org",
                "Transport": "Email",
                "Version": "2014-08-15",
                "EventTypes": ["HITReviewable"],
            },
        )
    assert "The Email transport is not supported" in str(info.value)
