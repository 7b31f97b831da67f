"""Workers asking for qualifications, taking tests scored by answer keys, and the requester's
ListQualificationRequests / AcceptQualificationRequest / RejectQualificationRequest.

Expected scores are worked out by hand from MTurk's API reference, "AnswerKey".
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas"


def selection_question(identifier, choices):
    selections = "".join(
        f"<Selection><SelectionIdentifier>{c}</SelectionIdentifier><Text>{c}</Text></Selection>"
        for c in choices
    )
    return (
        f"<Question><QuestionIdentifier>{identifier}</QuestionIdentifier><QuestionContent>"
        f"<Text>{identifier}?</Text></QuestionContent><AnswerSpecification><SelectionAnswer>"
        f"<Selections>{selections}</Selections></SelectionAnswer></AnswerSpecification></Question>"
    )


TEST = (
    f'<QuestionForm xmlns="{NS}/2017-11-06/QuestionForm.xsd">'
    + selection_question("capital", ["paris", "lyon"])
    + selection_question("primes", ["two", "three", "four"])
    + "</QuestionForm>"
)


def answer_key(mapping="", default=""):
    return (
        f'<AnswerKey xmlns="{NS}/2005-10-01/AnswerKey.xsd">'
        "<Question><QuestionIdentifier>capital</QuestionIdentifier>"
        "<AnswerOption><SelectionIdentifier>paris</SelectionIdentifier>"
        "<AnswerScore>10</AnswerScore></AnswerOption>"
        "<AnswerOption><SelectionIdentifier>lyon</SelectionIdentifier>"
        f"<AnswerScore>-5</AnswerScore></AnswerOption>{default}</Question>"
        "<Question><QuestionIdentifier>primes</QuestionIdentifier>"
        "<AnswerOption><SelectionIdentifier>two</SelectionIdentifier>"
        "<SelectionIdentifier>three</SelectionIdentifier><AnswerScore>5</AnswerScore>"
        "</AnswerOption></Question>"
        f"{mapping}</AnswerKey>"
    )


def make_type(client, name, **extra):
    return client.create_qualification_type(
        Name=name, Description="d", QualificationTypeStatus="Active", **extra
    )["QualificationType"]["QualificationTypeId"]


def ask(mturk, type_id, worker):
    return mturk.post(f"/worker/qualifications/{type_id}/request", workerId=worker)


def take(mturk, type_id, worker, **answers):
    started = ask(mturk, type_id, worker)
    assert started.status_code == 200, started.text
    body = started.json()
    assert body["RequestStatus"] == "Started" and body["Test"] == TEST
    done = mturk.session.post(
        f"{mturk.url}/worker/qualification-requests/{body['QualificationRequestId']}/answers",
        data={"workerId": worker, **answers},
    )
    assert done.status_code == 200, done.text
    return done.json()


def score_of(client, type_id, worker):
    return client.get_qualification_score(QualificationTypeId=type_id, WorkerId=worker)[
        "Qualification"
    ]["IntegerValue"]


@pytest.mark.parametrize(
    ("mapping", "answers", "expected"),
    [
        # No mapping: the sum. paris (10) + {two, three} (5).
        ("", {"capital": "paris", "primes": ["two", "three"]}, 15),
        # lyon (-5) + {two} matches no option (default 0).
        ("", {"capital": "lyon", "primes": ["two"]}, -5),
        # PercentageMapping: 10 / 15 x 100 = 66.67 -> 67.
        (
            "<QualificationValueMapping><PercentageMapping><MaximumSummedScore>15"
            "</MaximumSummedScore></PercentageMapping></QualificationValueMapping>",
            {"capital": "paris"},
            67,
        ),
        # ScaleMapping: 15 x 2.5 = 37.5 -> 38.
        (
            "<QualificationValueMapping><ScaleMapping><SummedScoreMultiplier>2.5"
            "</SummedScoreMultiplier></ScaleMapping></QualificationValueMapping>",
            {"capital": "paris", "primes": ["three", "two"]},
            38,
        ),
        # RangeMapping: 10 lies in 8..12 -> 100; -5 is in no range -> 1.
        (
            "<QualificationValueMapping><RangeMapping><SummedScoreRange><InclusiveLowerBound>8"
            "</InclusiveLowerBound><InclusiveUpperBound>12</InclusiveUpperBound>"
            "<QualificationValue>100</QualificationValue></SummedScoreRange>"
            "<OutOfRangeQualificationValue>1</OutOfRangeQualificationValue></RangeMapping>"
            "</QualificationValueMapping>",
            {"capital": "paris", "primes": "four"},
            100,
        ),
        (
            "<QualificationValueMapping><RangeMapping><SummedScoreRange><InclusiveLowerBound>8"
            "</InclusiveLowerBound><InclusiveUpperBound>12</InclusiveUpperBound>"
            "<QualificationValue>100</QualificationValue></SummedScoreRange>"
            "<OutOfRangeQualificationValue>1</OutOfRangeQualificationValue></RangeMapping>"
            "</QualificationValueMapping>",
            {"capital": "lyon"},
            1,
        ),
    ],
)
def test_a_test_with_an_answer_key_is_scored_and_granted_at_once(
    mturk, client, mapping, answers, expected
):
    type_id = make_type(
        client, "quiz", Test=TEST, AnswerKey=answer_key(mapping), TestDurationInSeconds=600
    )
    done = take(mturk, type_id, "AW1", **answers)
    assert done["RequestStatus"] == "Approved" and done["IntegerValue"] == expected
    assert score_of(client, type_id, "AW1") == expected
    assert client.list_qualification_requests(QualificationTypeId=type_id)["NumResults"] == 0


def test_default_score_counts_when_no_option_matches(mturk, client):
    key = answer_key(default="<DefaultScore>3</DefaultScore>")
    type_id = make_type(client, "quiz", Test=TEST, AnswerKey=key, TestDurationInSeconds=600)
    assert take(mturk, type_id, "AW1")["IntegerValue"] == 3  # nothing answered: 3 + 0


def test_an_answer_key_naming_a_question_the_test_lacks_is_refused(client):
    key = answer_key().replace("primes", "missing")
    with pytest.raises(ClientError) as info:
        make_type(client, "bad", Test=TEST, AnswerKey=key, TestDurationInSeconds=60)
    assert "the AnswerKey scores question 'missing', which the Test lacks" in str(info.value)


def test_a_test_without_an_answer_key_waits_for_the_requester(mturk, client):
    type_id = make_type(client, "manual-quiz", Test=TEST, TestDurationInSeconds=600)
    done = take(mturk, type_id, "AW1", capital="lyon")
    assert done["RequestStatus"] == "Submitted"
    listed = client.list_qualification_requests(QualificationTypeId=type_id)
    [request] = listed["QualificationRequests"]
    assert (request["WorkerId"], request["QualificationTypeId"], request["Test"]) == (
        "AW1",
        type_id,
        TEST,
    )
    assert (
        "<QuestionIdentifier>capital</QuestionIdentifier>"
        "<SelectionIdentifier>lyon</SelectionIdentifier>"
    ) in request["Answer"]
    client.accept_qualification_request(
        QualificationRequestId=request["QualificationRequestId"], IntegerValue=42
    )
    assert score_of(client, type_id, "AW1") == 42
    assert client.list_qualification_requests()["QualificationRequests"] == []
    with pytest.raises(ClientError) as info:
        client.accept_qualification_request(
            QualificationRequestId=request["QualificationRequestId"]
        )
    assert "can be called with a status of: Submitted" in str(info.value)


def test_a_request_without_a_test_is_decided_by_the_requester(mturk, client):
    type_id = make_type(client, "ask-me")
    assert ask(mturk, type_id, "AYES").json()["RequestStatus"] == "Submitted"
    assert ask(mturk, type_id, "ANO").json()["RequestStatus"] == "Submitted"
    requests = client.list_qualification_requests()["QualificationRequests"]
    by_worker = {r["WorkerId"]: r["QualificationRequestId"] for r in requests}
    assert set(by_worker) == {"AYES", "ANO"} and "Test" not in requests[0]
    client.accept_qualification_request(QualificationRequestId=by_worker["AYES"])
    client.reject_qualification_request(
        QualificationRequestId=by_worker["ANO"], Reason="Not this time."
    )
    assert score_of(client, type_id, "AYES") == 1  # IntegerValue defaults to 1
    messages = mturk.get("/worker/messages", workerId="ANO").json()["Messages"]
    assert messages[-1]["MessageText"] == "Not this time."
    with pytest.raises(ClientError) as info:
        client.get_qualification_score(QualificationTypeId=type_id, WorkerId="ANO")
    assert "does not exist" in str(info.value)


def test_auto_granted_type_is_granted_on_request(mturk, client):
    type_id = make_type(client, "auto", AutoGranted=True, AutoGrantedValue=9)
    got = ask(mturk, type_id, "AW1").json()
    assert (got["RequestStatus"], got["IntegerValue"]) == ("Approved", 9)
    assert score_of(client, type_id, "AW1") == 9
    again = ask(mturk, type_id, "AW1")
    assert again.status_code == 409 and again.json()["code"] == "AlreadyGranted"


def test_without_a_retry_delay_a_type_is_requested_once(mturk, client):
    type_id = make_type(client, "once")
    request_id = ask(mturk, type_id, "AW1").json()["QualificationRequestId"]
    client.reject_qualification_request(QualificationRequestId=request_id)
    again = ask(mturk, type_id, "AW1")
    assert again.status_code == 409
    assert again.json() == {"code": "NoRetries", "error": "once can be requested only once"}


def test_with_a_retry_delay_a_type_is_requested_again_after_it(mturk, client):
    type_id = make_type(client, "retry", RetryDelayInSeconds=3600)
    request_id = ask(mturk, type_id, "AW1").json()["QualificationRequestId"]
    client.reject_qualification_request(QualificationRequestId=request_id)
    assert ask(mturk, type_id, "AW1").json()["code"] == "RetryLater"
    mturk.advance(3601)
    assert ask(mturk, type_id, "AW1").json()["RequestStatus"] == "Submitted"


def test_answers_after_the_test_duration_close_the_request(mturk, client):
    type_id = make_type(client, "timed", Test=TEST, TestDurationInSeconds=60)
    started = ask(mturk, type_id, "AW1").json()
    mturk.advance(61)
    late = mturk.session.post(
        f"{mturk.url}/worker/qualification-requests/{started['QualificationRequestId']}/answers",
        data={"workerId": "AW1", "capital": "paris"},
    ).json()
    assert late["RequestStatus"] == "Rejected"
    assert late["Reason"] == "The test was not finished within its time limit."


def test_only_the_worker_who_asked_may_answer(mturk, client):
    type_id = make_type(client, "mine", Test=TEST, TestDurationInSeconds=60)
    started = ask(mturk, type_id, "AW1").json()
    r = mturk.session.post(
        f"{mturk.url}/worker/qualification-requests/{started['QualificationRequestId']}/answers",
        data={"workerId": "AOTHER", "capital": "paris"},
    )
    assert r.status_code == 403 and r.json()["code"] == "NotYourRequest"


def test_inactive_and_system_types_cannot_be_requested(mturk, client):
    type_id = make_type(client, "off")
    client.update_qualification_type(
        QualificationTypeId=type_id, QualificationTypeStatus="Inactive"
    )
    assert ask(mturk, type_id, "AW1").json()["code"] == "QualificationTypeInactive"
    masters = ask(mturk, "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "AW1")
    assert masters.status_code == 409 and masters.json()["error"] == (
        "Masters is a system qualification"
    )


def test_a_revoked_worker_cannot_ask_again(mturk, client):
    type_id = make_type(client, "revocable", AutoGranted=True)
    ask(mturk, type_id, "AW1")
    client.disassociate_qualification_from_worker(QualificationTypeId=type_id, WorkerId="AW1")
    assert ask(mturk, type_id, "AW1").json()["code"] == "Revoked"


def test_the_worker_sees_where_they_stand(mturk, client):
    type_id = make_type(client, "view", Test=TEST, TestDurationInSeconds=60)
    before = mturk.get(f"/worker/qualifications/{type_id}", workerId="AW1").json()
    assert (before["HasTest"], before["canRequest"]) == (True, True)
    ask(mturk, type_id, "AW1")
    after = mturk.get(f"/worker/qualifications/{type_id}", workerId="AW1").json()
    assert (after["RequestStatus"], after["canRequest"]) == ("Started", False)


def test_unknown_request_ids_are_request_errors(client):
    for call in (client.accept_qualification_request, client.reject_qualification_request):
        with pytest.raises(ClientError) as info:
            call(QualificationRequestId="NOSUCHREQUEST")
        assert info.value.response["Error"]["Message"].startswith(
            "QualificationRequest NOSUCHREQUEST does not exist."
        )
    with pytest.raises(ClientError) as info:
        client.list_qualification_requests(QualificationTypeId="NOSUCHTYPE")
    assert "QualificationType NOSUCHTYPE does not exist." in str(info.value)
