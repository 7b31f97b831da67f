"""Notifications into a local SQS (moto's server on loopback), and never anywhere else."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from harness.providers.mturk.local_service import Settings, create_app
from tests.providers.mturk.local_service.factories import hit_params

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


def drain(sqs, queue_url, service):
    """Every message in the queue once ``service`` has sent what it queued, de-duplicated on
    EventDocId as MTurk advises."""
    service.sent()
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


def spec(destination, event_types=ALL_EVENTS):
    return {
        "Destination": destination,
        "Transport": "SQS",
        "Version": "2014-08-15",
        "EventTypes": event_types,
    }


def subscribe(client, queue_url, hit_type_id, event_types=ALL_EVENTS):
    client.update_notification_settings(
        HITTypeId=hit_type_id, Notification=spec(queue_url, event_types), Active=True
    )


def test_assignment_and_hit_events_arrive_in_mturks_format(sqs, queue, mturk_sqs):
    client = mturk_sqs.client()
    hit = client.create_hit(**hit_params(MaxAssignments=2))["HIT"]
    subscribe(client, queue, hit["HITTypeId"])
    hit_id = hit["HITId"]
    a = mturk_sqs.work(hit_id, "AWORKER1")
    returned = mturk_sqs.accept(hit_id, "AWORKER2")["AssignmentId"]
    mturk_sqs.post(f"/worker/assignments/{returned}/return")
    b = mturk_sqs.work(hit_id, "AWORKER3")
    client.approve_assignment(AssignmentId=a)
    client.reject_assignment(AssignmentId=b, RequesterFeedback="no")
    docs = drain(sqs, queue, mturk_sqs)
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


def test_expiry_abandonment_and_auto_approval_events(sqs, queue, mturk_sqs):
    client = mturk_sqs.client()
    hit = client.create_hit(
        **hit_params(MaxAssignments=2, LifetimeInSeconds=900, AutoApprovalDelayInSeconds=60)
    )["HIT"]
    subscribe(client, queue, hit["HITTypeId"])
    done = mturk_sqs.work(hit["HITId"], "AWORKER1")
    left = mturk_sqs.accept(hit["HITId"], "AWORKER2")["AssignmentId"]
    mturk_sqs.advance(1000)
    client.get_hit(HITId=hit["HITId"])
    got = events(drain(sqs, queue, mturk_sqs))
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


def test_only_the_requested_event_types_are_sent(sqs, queue, mturk_sqs):
    client = mturk_sqs.client()
    hit = client.create_hit(**hit_params())["HIT"]
    subscribe(client, queue, hit["HITTypeId"], ["AssignmentSubmitted"])
    a = mturk_sqs.work(hit["HITId"], "AWORKER1")
    assert events(drain(sqs, queue, mturk_sqs)) == [("AssignmentSubmitted", a)]


def test_inactive_notification_sends_nothing(sqs, queue, mturk_sqs):
    client = mturk_sqs.client()
    hit = client.create_hit(**hit_params())["HIT"]
    subscribe(client, queue, hit["HITTypeId"])
    client.update_notification_settings(HITTypeId=hit["HITTypeId"], Active=False)
    mturk_sqs.work(hit["HITId"], "AWORKER1")
    assert drain(sqs, queue, mturk_sqs) == []


def test_send_test_event_notification(sqs, queue, mturk_sqs):
    mturk_sqs.client().send_test_event_notification(
        Notification=spec(queue, ["AssignmentSubmitted"]), TestEventType="AssignmentSubmitted"
    )
    assert [e[0] for e in events(drain(sqs, queue, mturk_sqs))] == ["AssignmentSubmitted"]


def test_a_queue_url_naming_aws_is_delivered_to_the_local_sqs_all_the_same(sqs, queue, mturk_sqs):
    name = queue.rsplit("/", 1)[1]
    aws_url = f"https://sqs.us-east-1.amazonaws.com/123456789012/{name}"
    mturk_sqs.client().send_test_event_notification(
        Notification=spec(aws_url, ["HITExpired"]), TestEventType="HITExpired"
    )
    assert [e[0] for e in events(drain(sqs, queue, mturk_sqs))] == ["HITExpired"]


def test_undeliverable_messages_are_retried(sqs, mturk_sqs):
    client = mturk_sqs.client()
    queue = sqs.create_queue(QueueName="comes-and-goes")["QueueUrl"]
    hit = client.create_hit(**hit_params())["HIT"]
    subscribe(client, queue, hit["HITTypeId"], ["AssignmentAccepted"])
    sqs.delete_queue(QueueUrl=queue)
    a = mturk_sqs.accept(hit["HITId"], "AWORKER1")["AssignmentId"]
    assert mturk_sqs.control("deliver")["sent"] == 0
    sqs.create_queue(QueueName="comes-and-goes")
    assert mturk_sqs.control("deliver")["sent"] == 1
    assert events(drain(sqs, queue, mturk_sqs)) == [("AssignmentAccepted", a)]


def test_email_transport_is_refused(mturk_sqs):
    client = mturk_sqs.client()
    type_id = client.create_hit(**hit_params())["HIT"]["HITTypeId"]
    with pytest.raises(ClientError) as info:
        client.update_notification_settings(
            HITTypeId=type_id,
            Notification={**spec("me@example.org", ["HITReviewable"]), "Transport": "Email"},
        )
    assert "The Email transport is not supported" in str(info.value)


AWS_QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/events"


def test_an_aws_queue_without_a_local_sqs_is_refused_with_how_to_start_one(client):
    """The service never falls back to AWS (and the environment's credentials)."""
    type_id = client.create_hit(**hit_params())["HIT"]["HITTypeId"]
    for call in (
        lambda: client.update_notification_settings(
            HITTypeId=type_id, Notification=spec(AWS_QUEUE)
        ),
        lambda: client.send_test_event_notification(
            Notification=spec(AWS_QUEUE), TestEventType="HITExpired"
        ),
    ):
        with pytest.raises(ClientError) as info:
            call()
        message = info.value.response["Error"]["Message"]
        assert message.startswith(
            f"The Destination {AWS_QUEUE!r} is not on this machine and no local SQS is set: the "
            "local MTurk service delivers notifications only to a local SQS. Either start the "
            "service with --sqs-endpoint-url http://127.0.0.1:PORT pointing at a local SQS (for "
            "example `moto_server -p 9324` from the moto package), or give the URL of a queue of "
            "a local SQS (http://127.0.0.1:PORT/...)."
        )


def test_a_queue_of_a_local_sqs_needs_no_endpoint_setting(sqs, queue, mturk):
    """moto's server hands out queue URLs on its own loopback address: those are delivered to."""
    client = mturk.client()
    hit = client.create_hit(**hit_params())["HIT"]
    subscribe(client, queue, hit["HITTypeId"], ["AssignmentAccepted"])
    a = mturk.accept(hit["HITId"], "AWORKER1")["AssignmentId"]
    assert events(drain(sqs, queue, mturk)) == [("AssignmentAccepted", a)]


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://sqs.us-east-1.amazonaws.com",
        "http://10.0.0.5:9324",
        "http://example.org:9324",
        "ftp://127.0.0.1:9324",
    ],
)
def test_an_sqs_endpoint_off_this_machine_is_refused_at_start(tmp_path, endpoint):
    with pytest.raises(ValueError) as info:
        create_app(Settings(db_path=tmp_path / "m.sqlite", sqs_endpoint_url=endpoint))
    assert str(info.value) == (
        f"the SQS endpoint {endpoint!r} is not on this machine: the local MTurk service sends "
        "notifications only to a local SQS (http://127.0.0.1:PORT or http://localhost:PORT), "
        "never to AWS"
    )


@pytest.mark.parametrize(
    "endpoint", ["http://127.0.0.1:9324", "http://localhost:1", "http://[::1]:9"]
)
def test_loopback_endpoints_are_taken(tmp_path, endpoint):
    app = create_app(Settings(db_path=tmp_path / "m.sqlite", sqs_endpoint_url=endpoint))
    assert app.extensions["mturk_local"].sender.endpoint_url == endpoint
    app.extensions["mturk_local"].close()
