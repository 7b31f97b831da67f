"""Qualification types as MTurk's API reference describes them, and as the field's requester
code (Mephisto, amti, Dallinger) uses them: listing, Masters, deleting, updating, scores."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import hit_params

MASTERS_SANDBOX = "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"
MASTERS_PRODUCTION = "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"
ADULT = "00000000000000000060"
SYSTEM = {
    MASTERS_SANDBOX,
    MASTERS_PRODUCTION,
    ADULT,
    "00000000000000000071",
    "000000000000000000L0",
    "00000000000000000040",
}
QUESTION_FORM = (
    '<QuestionForm xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2017-11-06/QuestionForm.xsd"><Question><QuestionIdentifier>q1</QuestionIdentifier>'
    "<QuestionContent><Text>2+2?</Text></QuestionContent><AnswerSpecification><SelectionAnswer>"
    "<Selections><Selection><SelectionIdentifier>a</SelectionIdentifier><Text>4</Text>"
    "</Selection><Selection><SelectionIdentifier>b</SelectionIdentifier><Text>5</Text>"
    "</Selection></Selections></SelectionAnswer></AnswerSpecification></Question></QuestionForm>"
)


def make_type(client, name, **extra):
    return client.create_qualification_type(
        Name=name, Description=f"{name} description", QualificationTypeStatus="Active", **extra
    )["QualificationType"]


def ids(listing):
    return [t["QualificationTypeId"] for t in listing["QualificationTypes"]]


def error(info):
    return info.value.response["Error"]


# -- ListQualificationTypes ---------------------------------------------------------------


def test_a_type_without_a_test_is_requestable(client):
    """API reference, CreateQualificationType, Test: "If not specified, the Worker may request
    the Qualification without answering any questions.\""""
    plain = make_type(client, "plain")
    assert plain["IsRequestable"] is True
    found = client.list_qualification_types(MustBeRequestable=True, MustBeOwnedByCaller=True)
    assert ids(found) == [plain["QualificationTypeId"]]


def test_must_be_owned_by_caller_defaults_to_false_and_then_lists_system_types(client):
    mine = make_type(client, "mine")["QualificationTypeId"]
    every = ids(client.list_qualification_types(MustBeRequestable=False, MaxResults=100))
    assert set(every) == SYSTEM | {mine}
    owned = client.list_qualification_types(MustBeRequestable=False, MustBeOwnedByCaller=True)
    assert ids(owned) == [mine]
    # System types cannot be requested by workers, so MustBeRequestable leaves them out.
    assert ids(client.list_qualification_types(MustBeRequestable=True)) == [mine]


def test_query_matches_name_description_and_keywords_ignoring_case(client):
    by_name = make_type(client, "Trained Rater")["QualificationTypeId"]
    by_keywords = make_type(client, "other", Keywords="rater, similarity")["QualificationTypeId"]
    found = client.list_qualification_types(
        Query="RATER", MustBeRequestable=True, MustBeOwnedByCaller=True
    )
    assert ids(found) == [by_name, by_keywords]
    masters = client.list_qualification_types(Query="masters", MustBeRequestable=False)
    assert set(ids(masters)) == {MASTERS_SANDBOX, MASTERS_PRODUCTION}


def test_mephistos_find_or_create_finds_an_existing_type(client):
    """mephisto/abstractions/providers/mturk/mturk_utils.py, find_or_create_qualification:
    a type made without a test must be found by name with MustBeRequestable=True, or the
    second run fails with "Qualification exists, but could not be found?"."""

    def find_qualification(name):
        response = client.list_qualification_types(
            Query=name, MustBeRequestable=True, MustBeOwnedByCaller=True
        )
        for q in response["QualificationTypes"]:
            if q["Name"] == name:
                return q["QualificationTypeId"]
        return None

    made = make_type(client, "mephisto_allowlist_sandbox")["QualificationTypeId"]
    with pytest.raises(ClientError) as info:
        make_type(client, "mephisto_allowlist_sandbox")
    assert error(info)["Message"].startswith(
        "You have already created a QualificationType with this name."
    )
    assert find_qualification("mephisto_allowlist_sandbox") == made


def test_amtis_associate_by_name_finds_the_type(client):
    """amti/utils/mturk.py, get_qual_by_name: MustBeRequestable=True, MustBeOwnedByCaller=True,
    MaxResults=100, then an exact name match."""
    made = make_type(client, "amti-qual")["QualificationTypeId"]
    response = client.list_qualification_types(
        Query="amti-qual", MustBeRequestable=True, MustBeOwnedByCaller=True, MaxResults=100
    )
    assert [
        q["QualificationTypeId"] for q in response["QualificationTypes"] if q["Name"] == "amti-qual"
    ] == [made]


# -- Masters and the other system types ---------------------------------------------------


@pytest.mark.parametrize("masters", [MASTERS_SANDBOX, MASTERS_PRODUCTION])
def test_masters_is_a_known_system_type_granted_to_nobody_unless_stated(mturk, client, masters):
    req = [{"QualificationTypeId": masters, "Comparator": "Exists", "ActionsGuarded": "Accept"}]
    type_id = client.create_hit_type(
        Title="t",
        Description="d",
        Reward="0.10",
        AssignmentDurationInSeconds=60,
        QualificationRequirements=req,
    )["HITTypeId"]
    hit_id = client.create_hit_with_hit_type(
        HITTypeId=type_id, LifetimeInSeconds=600, Question=hit_params()["Question"]
    )["HIT"]["HITId"]
    plain = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="APLAIN")
    assert plain.status_code == 403 and plain.json()["code"] == "NotQualified"
    master = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AMASTER", master="1")
    assert master.status_code == 200


def test_get_qualification_type_describes_system_types(client):
    got = client.get_qualification_type(QualificationTypeId=MASTERS_PRODUCTION)
    masters = got["QualificationType"]
    assert (masters["Name"], masters["IsRequestable"], masters["QualificationTypeStatus"]) == (
        "Masters",
        False,
        "Active",
    )


def test_worker_adult_requirement(mturk, client):
    req = [{"QualificationTypeId": ADULT, "Comparator": "EqualTo", "IntegerValues": [1]}]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AKID").status_code == 403
    assert mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AADULT", adult="1").ok


def test_system_types_cannot_be_granted_or_scored(client):
    for call in (
        lambda: client.associate_qualification_with_worker(
            QualificationTypeId=MASTERS_SANDBOX, WorkerId="AW1"
        ),
        lambda: client.get_qualification_score(QualificationTypeId=MASTERS_SANDBOX, WorkerId="AW1"),
    ):
        with pytest.raises(ClientError) as info:
            call()
        assert error(info)["Message"].startswith(
            f"QualificationType {MASTERS_SANDBOX} (Masters) is a system type: only "
            "QualificationTypes you created can be used in this operation."
        )


# -- DeleteQualificationType --------------------------------------------------------------


def test_delete_frees_the_name_disposes_hit_types_and_keeps_grants(mturk, client):
    """API reference, DeleteQualificationType: disposes the type and the HIT types using it,
    does not revoke granted qualifications, rejects pending requests."""
    old = make_type(client, "allowlist")["QualificationTypeId"]
    client.associate_qualification_with_worker(QualificationTypeId=old, WorkerId="AKEPT")
    req = [{"QualificationTypeId": old, "Comparator": "Exists"}]
    running = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]
    pending = mturk.post(f"/worker/qualifications/{old}/request", workerId="AASKING").json()
    client.delete_qualification_type(QualificationTypeId=old)

    with pytest.raises(ClientError) as info:
        client.get_qualification_type(QualificationTypeId=old)
    assert error(info)["Message"].startswith(f"QualificationType {old} does not exist.")
    with pytest.raises(ClientError) as info:
        client.create_hit_with_hit_type(
            HITTypeId=running["HITTypeId"], LifetimeInSeconds=60, Question=hit_params()["Question"]
        )
    assert error(info)["Message"].startswith(f"HITType {running['HITTypeId']} does not exist.")
    assert mturk.post(f"/worker/hits/{running['HITId']}/accept", workerId="AKEPT").ok
    standing = mturk.get("/worker/messages", workerId="AASKING")  # the worker still exists
    assert standing.ok and pending["RequestStatus"] == "Submitted"
    assert client.list_qualification_requests()["QualificationRequests"] == []
    assert make_type(client, "allowlist")["QualificationTypeId"] != old


# -- GetQualificationScore (as Dallinger reads it) ----------------------------------------


def test_qualification_score_granted_missing_and_revoked(client):
    type_id = make_type(client, "score")["QualificationTypeId"]
    client.associate_qualification_with_worker(
        QualificationTypeId=type_id, WorkerId="AW1", IntegerValue=7, SendNotification=False
    )
    got = client.get_qualification_score(QualificationTypeId=type_id, WorkerId="AW1")
    assert (got["Qualification"]["IntegerValue"], got["Qualification"]["Status"]) == (7, "Granted")
    with pytest.raises(ClientError) as info:
        client.get_qualification_score(QualificationTypeId=type_id, WorkerId="AW2")
    assert "does not exist" in error(info)["Message"]  # dallinger/mturk.py looks for this
    client.disassociate_qualification_from_worker(QualificationTypeId=type_id, WorkerId="AW1")
    with pytest.raises(ClientError) as info:
        client.get_qualification_score(QualificationTypeId=type_id, WorkerId="AW1")
    assert "operation can be called with a status of: Granted" in error(info)["Message"]


# -- UpdateQualificationType --------------------------------------------------------------


def test_update_changes_status_description_and_auto_grant(client):
    type_id = make_type(client, "upd", Keywords="k")["QualificationTypeId"]
    got = client.update_qualification_type(
        QualificationTypeId=type_id,
        Description="new words",
        QualificationTypeStatus="Inactive",
        AutoGranted=True,
        RetryDelayInSeconds=60,
    )["QualificationType"]
    assert (got["Description"], got["QualificationTypeStatus"], got["AutoGranted"]) == (
        "new words",
        "Inactive",
        True,
    )
    assert (got["AutoGrantedValue"], got["RetryDelayInSeconds"], got["Keywords"]) == (1, 60, "k")
    assert client.get_qualification_type(QualificationTypeId=type_id)["QualificationType"] == got


def test_update_adds_a_test_which_then_cannot_be_auto_granted(client):
    type_id = make_type(client, "gets-a-test")["QualificationTypeId"]
    with pytest.raises(ClientError) as info:
        client.update_qualification_type(QualificationTypeId=type_id, Test=QUESTION_FORM)
    assert error(info)["Message"].startswith("TestDurationInSeconds must be given with a Test.")
    got = client.update_qualification_type(
        QualificationTypeId=type_id, Test=QUESTION_FORM, TestDurationInSeconds=300
    )["QualificationType"]
    assert got["Test"] == QUESTION_FORM and got["TestDurationInSeconds"] == 300
    with pytest.raises(ClientError) as info:
        client.update_qualification_type(QualificationTypeId=type_id, AutoGranted=True)
    assert error(info)["Message"].startswith(
        "A QualificationType cannot have both a Test and AutoGranted set to true."
    )
    with pytest.raises(ClientError) as info:
        client.update_qualification_type(QualificationTypeId=type_id, TestDurationInSeconds=9)
    assert error(info)["Message"].startswith(
        "To change the AnswerKey or TestDurationInSeconds, give the Test again with them."
    )


def test_a_test_must_be_a_question_form(client):
    with pytest.raises(ClientError) as info:
        make_type(client, "bad-test", Test="<Nope/>", TestDurationInSeconds=60)
    assert info.value.response["TurkErrorCode"] == "AWS.MechanicalTurk.XMLParseError"
    assert "the Test must be a <QuestionForm>, not <Nope>" in error(info)["Message"]


def test_a_test_and_auto_grant_together_are_refused(client):
    with pytest.raises(ClientError) as info:
        make_type(client, "both", Test=QUESTION_FORM, TestDurationInSeconds=60, AutoGranted=True)
    assert error(info)["Code"] == "RequestError"
