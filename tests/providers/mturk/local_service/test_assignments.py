"""The assignment lifecycle through the worker side and the requester API."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import (
    external_question,
    hit_params,
    html_question,
)

NS = {
    "q": "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/"
    "2005-10-01/QuestionFormAnswers.xsd"
}


def answers(xml: str) -> dict[str, str]:
    root = ET.fromstring(xml)
    return {
        a.find("q:QuestionIdentifier", NS).text: a.find("q:FreeText", NS).text
        for a in root.findall("q:Answer", NS)
    }


def test_accept_external_question_appends_mturks_query_parameters(mturk, client):
    hit_id = client.create_hit(**hit_params(Question=external_question("https://x.org/t?a=1")))[
        "HIT"
    ]["HITId"]
    view = mturk.accept(hit_id, "AWORKER1")
    url = urlsplit(view["ExternalURL"])
    query = parse_qs(url.query)
    assert url.netloc == "x.org" and query["a"] == ["1"]
    assert query["assignmentId"] == [view["AssignmentId"]]
    assert query["hitId"] == [hit_id]
    assert query["workerId"] == ["AWORKER1"]
    assert query["turkSubmitTo"] == [mturk.url]
    hit = client.get_hit(HITId=hit_id)["HIT"]
    assert hit["NumberOfAssignmentsPending"] == 1
    assert hit["NumberOfAssignmentsAvailable"] == 2


def test_preview_uses_assignment_id_not_available(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    r = mturk.get(f"/worker/hits/{hit_id}", workerId="AWORKER1")
    query = parse_qs(urlsplit(r.json()["ExternalURL"]).query)
    assert query == {"assignmentId": ["ASSIGNMENT_ID_NOT_AVAILABLE"], "hitId": [hit_id]}


def test_external_submit_becomes_question_form_answers(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    assignment_id = mturk.work(hit_id, "AWORKER1", similarity="7.5", comment="tiger & cat <3")
    listed = client.list_assignments_for_hit(HITId=hit_id)
    assert listed["NumResults"] == 1
    a = listed["Assignments"][0]
    assert a["AssignmentId"] == assignment_id
    assert a["WorkerId"] == "AWORKER1"
    assert a["AssignmentStatus"] == "Submitted"
    assert answers(a["Answer"]) == {"similarity": "7.5", "comment": "tiger & cat <3"}
    got = client.get_assignment(AssignmentId=assignment_id)
    assert got["HIT"]["HITId"] == hit_id
    assert got["Assignment"]["AutoApprovalTime"] > got["Assignment"]["SubmitTime"]


def test_html_question_returns_the_document_and_crowd_form_gives_task_answers(mturk, client):
    hit_id = client.create_hit(**hit_params(Question=html_question()))["HIT"]["HITId"]
    view = mturk.accept(hit_id, "AWORKER1")
    assert view["QuestionType"] == "HTMLQuestion"
    assert "<crowd-form>" in view["HTMLContent"]
    r = mturk.post(f"/worker/assignments/{view['AssignmentId']}/submit", similarity="8")
    assert r.status_code == 200
    a = client.get_assignment(AssignmentId=view["AssignmentId"])["Assignment"]
    got = answers(a["Answer"])
    assert list(got) == ["taskAnswers"]
    assert json.loads(got["taskAnswers"]) == [{"similarity": "8"}]


def test_plain_html_form_gives_one_answer_per_field(mturk, client):
    html = '<form><input name="a"><input name="b"></form>'
    hit_id = client.create_hit(**hit_params(Question=html_question(html)))["HIT"]["HITId"]
    view = mturk.accept(hit_id, "AWORKER1")
    mturk.post(f"/worker/assignments/{view['AssignmentId']}/submit", a="1", b="2")
    a = client.get_assignment(AssignmentId=view["AssignmentId"])["Assignment"]
    assert answers(a["Answer"]) == {"a": "1", "b": "2"}


MTURK_PARAMS = {"workerId": "AWORKER1", "hitId": "H1", "turkSubmitTo": "https://www.mturk.com"}


@pytest.mark.parametrize("html", ['<form><input name="a"></form>', None])
def test_mturks_own_parameters_posted_by_a_form_are_not_answers(mturk, client, html):
    question = html_question() if html is None else html_question(html)
    hit_id = client.create_hit(**hit_params(Question=question))["HIT"]["HITId"]
    view = mturk.accept(hit_id, "AWORKER1")
    mturk.submit(view["AssignmentId"], a="1", **MTURK_PARAMS)
    got = answers(client.get_assignment(AssignmentId=view["AssignmentId"])["Assignment"]["Answer"])
    if html:
        assert got == {"a": "1"}
    else:  # a crowd form: one taskAnswers
        assert json.loads(got["taskAnswers"]) == [{"a": "1"}]


def test_one_assignment_per_worker_per_hit(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    mturk.work(hit_id, "AWORKER1")
    r = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AWORKER1")
    assert r.status_code == 409
    assert r.json()["code"] == "AlreadyAccepted"


def test_max_assignments_then_unassignable_then_reviewable(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=2))["HIT"]["HITId"]
    mturk.work(hit_id, "AWORKER1")
    second = mturk.accept(hit_id, "AWORKER2")["AssignmentId"]
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Unassignable"
    r = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AWORKER3")
    assert r.status_code == 409 and r.json()["code"] == "NotAssignable"
    assert hit_id not in [
        h["HITId"] for h in mturk.get("/worker/hits", workerId="AW3").json()["HITs"]
    ]
    mturk.submit(second)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"


def test_returned_assignment_frees_the_slot(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=1))["HIT"]["HITId"]
    a = mturk.accept(hit_id, "AWORKER1")["AssignmentId"]
    assert mturk.post(f"/worker/assignments/{a}/return").status_code == 200
    hit = client.get_hit(HITId=hit_id)["HIT"]
    assert hit["HITStatus"] == "Assignable" and hit["NumberOfAssignmentsAvailable"] == 1
    assert mturk.post("/mturk/externalSubmit", assignmentId=a, x="1").status_code == 409


def test_assignment_past_its_deadline_is_abandoned(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=1))["HIT"]["HITId"]
    a = mturk.accept(hit_id, "AWORKER1")["AssignmentId"]
    mturk.advance(601)
    assert client.get_hit(HITId=hit_id)["HIT"]["NumberOfAssignmentsAvailable"] == 1
    assert (
        mturk.post("/mturk/externalSubmit", assignmentId=a, x="1").json()["code"] == "NotAccepted"
    )


def test_approve_and_reject_only_while_submitted(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    first = mturk.work(hit_id, "AWORKER1")
    second = mturk.work(hit_id, "AWORKER2")
    client.approve_assignment(AssignmentId=first, RequesterFeedback="Thanks")
    with pytest.raises(ClientError) as info:
        client.approve_assignment(AssignmentId=first)
    assert "This operation can be called with a status of: Submitted" in str(info.value)
    client.reject_assignment(AssignmentId=second, RequesterFeedback="Answers were random")
    with pytest.raises(ClientError):
        client.reject_assignment(AssignmentId=second, RequesterFeedback="again")
    statuses = {
        a["AssignmentId"]: (a["AssignmentStatus"], a["RequesterFeedback"])
        for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    }
    assert statuses == {first: ("Approved", "Thanks"), second: ("Rejected", "Answers were random")}
    only = client.list_assignments_for_hit(HITId=hit_id, AssignmentStatuses=["Rejected"])
    assert [a["AssignmentId"] for a in only["Assignments"]] == [second]
    assert client.get_hit(HITId=hit_id)["HIT"]["NumberOfAssignmentsCompleted"] == 2


def test_rejection_can_be_overridden(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    client.reject_assignment(AssignmentId=a, RequesterFeedback="no")
    client.approve_assignment(AssignmentId=a, OverrideRejection=True)
    assert client.get_assignment(AssignmentId=a)["Assignment"]["AssignmentStatus"] == "Approved"


def test_requester_feedback_at_most_1024_characters(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    with pytest.raises(ClientError) as info:
        client.reject_assignment(AssignmentId=a, RequesterFeedback="x" * 1025)
    assert "at most 1024 characters" in str(info.value)


def test_accepted_but_unsubmitted_assignment_is_invisible_to_the_requester(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    a = mturk.accept(hit_id, "AWORKER1")["AssignmentId"]
    with pytest.raises(ClientError) as info:
        client.get_assignment(AssignmentId=a)
    assert f"Assignment {a} does not exist." in str(info.value)
    assert client.list_assignments_for_hit(HITId=hit_id)["NumResults"] == 0


def test_auto_approval_when_the_delay_passes(mturk, client):
    hit_id = client.create_hit(**hit_params(AutoApprovalDelayInSeconds=3600))["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    mturk.advance(3599)
    assert client.get_assignment(AssignmentId=a)["Assignment"]["AssignmentStatus"] == "Submitted"
    mturk.advance(2)
    got = client.get_assignment(AssignmentId=a)["Assignment"]
    assert got["AssignmentStatus"] == "Approved"
    assert got["ApprovalTime"] == got["AutoApprovalTime"]


def test_zero_auto_approval_delay_approves_at_once(mturk, client):
    hit_id = client.create_hit(**hit_params(AutoApprovalDelayInSeconds=0))["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    assert client.get_assignment(AssignmentId=a)["Assignment"]["AssignmentStatus"] == "Approved"


def test_list_assignments_pages(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=5))["HIT"]["HITId"]
    ids = [mturk.work(hit_id, f"AWORKER{i}") for i in range(5)]
    pages = client.get_paginator("list_assignments_for_hit").paginate(
        HITId=hit_id, PaginationConfig={"PageSize": 2}
    )
    assert [a["AssignmentId"] for p in pages for a in p["Assignments"]] == ids


def test_send_bonus_and_list_bonus_payments(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    client.send_bonus(
        WorkerId="AWORKER1",
        BonusAmount="1.25",
        AssignmentId=a,
        Reason="great",
        UniqueRequestToken="b1",
    )
    with pytest.raises(ClientError) as info:
        client.send_bonus(
            WorkerId="AWORKER1",
            BonusAmount="1.25",
            AssignmentId=a,
            Reason="great",
            UniqueRequestToken="b1",
        )
    assert "already paid" in str(info.value)
    for query in ({"HITId": hit_id}, {"AssignmentId": a}):
        payments = client.list_bonus_payments(**query)["BonusPayments"]
        assert [(p["WorkerId"], p["BonusAmount"], p["Reason"]) for p in payments] == [
            ("AWORKER1", "1.25", "great")
        ]


def test_bonus_to_a_worker_who_did_not_do_the_assignment(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    with pytest.raises(ClientError) as info:
        client.send_bonus(WorkerId="AOTHER", BonusAmount="1.00", AssignmentId=a, Reason="r")
    assert "was not done by worker AOTHER" in str(info.value)


def test_expired_hit_with_work_in_progress_is_unassignable_until_it_ends(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=3))["HIT"]["HITId"]
    a = mturk.accept(hit_id, "AWORKER1")["AssignmentId"]
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=0)
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Unassignable"
    assert mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AW2").status_code == 409
    mturk.submit(a, answer="1")
    assert client.get_hit(HITId=hit_id)["HIT"]["HITStatus"] == "Reviewable"
