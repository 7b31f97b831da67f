"""Qualification types, grants, and enforcement when workers look for and accept work."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import hit_params

LOCALE = "00000000000000000071"
PERCENT = "000000000000000000L0"
NUMBER = "00000000000000000040"


def qual_type(client, name="Trained rater"):
    return client.create_qualification_type(
        Name=name, Description="passed training", QualificationTypeStatus="Active"
    )["QualificationType"]["QualificationTypeId"]


def visible(mturk, worker_id, **profile):
    r = mturk.get("/worker/hits", workerId=worker_id, **profile)
    assert r.status_code == 200
    return {h["HITId"]: (h["canPreview"], h["canAccept"]) for h in r.json()["HITs"]}


def can_accept(mturk, hit_id, worker_id, **profile):
    r = mturk.post(f"/worker/hits/{hit_id}/accept", workerId=worker_id, **profile)
    assert r.status_code in (200, 403), r.text
    return r.status_code == 200


def test_create_and_get_qualification_type(client):
    type_id = qual_type(client)
    got = client.get_qualification_type(QualificationTypeId=type_id)["QualificationType"]
    assert got["Name"] == "Trained rater"
    assert got["QualificationTypeStatus"] == "Active"
    with pytest.raises(ClientError) as info:
        qual_type(client)
    assert "already created a QualificationType with this name" in str(info.value)
    with pytest.raises(ClientError) as info:
        client.get_qualification_type(QualificationTypeId="NOSUCH")
    assert "QualificationType NOSUCH does not exist." in str(info.value)


def test_list_qualification_types_finds_the_callers_types_by_query(client):
    trained = qual_type(client, "Trained rater")
    qual_type(client, "Excluded from study A")
    found = client.list_qualification_types(
        Query="trained", MustBeRequestable=False, MustBeOwnedByCaller=True
    )
    assert [t["QualificationTypeId"] for t in found["QualificationTypes"]] == [trained]
    assert found["NumResults"] == 1
    everything = client.list_qualification_types(MustBeRequestable=False, MaxResults=1)
    assert len(everything["QualificationTypes"]) == 1 and "NextToken" in everything


def test_associate_list_and_disassociate(mturk, client):
    type_id = qual_type(client)
    client.associate_qualification_with_worker(
        QualificationTypeId=type_id, WorkerId="AWORKER1", IntegerValue=80
    )
    client.associate_qualification_with_worker(
        QualificationTypeId=type_id, WorkerId="AWORKER2", IntegerValue=20, SendNotification=False
    )
    quals = client.list_workers_with_qualification_type(QualificationTypeId=type_id)
    assert [(q["WorkerId"], q["IntegerValue"], q["Status"]) for q in quals["Qualifications"]] == [
        ("AWORKER1", 80, "Granted"),
        ("AWORKER2", 20, "Granted"),
    ]
    assert len(mturk.get("/worker/messages", workerId="AWORKER1").json()["Messages"]) == 1
    assert mturk.get("/worker/messages", workerId="AWORKER2").json()["Messages"] == []
    client.disassociate_qualification_from_worker(
        QualificationTypeId=type_id, WorkerId="AWORKER2", Reason="expired"
    )
    revoked = client.list_workers_with_qualification_type(
        QualificationTypeId=type_id, Status="Revoked"
    )["Qualifications"]
    assert [q["WorkerId"] for q in revoked] == ["AWORKER2"]
    with pytest.raises(ClientError):
        client.disassociate_qualification_from_worker(
            QualificationTypeId=type_id, WorkerId="AWORKER2"
        )


def test_invalid_worker_id_is_refused(client):
    type_id = qual_type(client)
    with pytest.raises(ClientError) as info:
        client.associate_qualification_with_worker(QualificationTypeId=type_id, WorkerId="BAD")
    # botocore's model carries MTurk's worker id pattern, so the front end refuses it.
    assert info.value.response["Error"]["Code"] == "ValidationException"
    assert "Value 'BAD' at 'workerId'" in str(info.value)


def test_requirement_on_unknown_type_is_refused(client):
    req = [{"QualificationTypeId": "NOSUCH", "Comparator": "Exists"}]
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(QualificationRequirements=req))
    assert "QualificationType NOSUCH does not exist." in str(info.value)


def test_comparator_value_counts_are_checked(client):
    type_id = qual_type(client)
    req = [{"QualificationTypeId": type_id, "Comparator": "GreaterThan", "IntegerValues": [1, 2]}]
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(QualificationRequirements=req))
    assert "needs exactly one value" in str(info.value)


def test_locale_with_country_list(mturk, client):
    req = [
        {
            "QualificationTypeId": LOCALE,
            "Comparator": "In",
            "LocaleValues": [{"Country": "US"}, {"Country": "GB"}],
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        }
    ]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert hit_id in visible(mturk, "AUS", country="US")
    assert hit_id not in visible(mturk, "ADE", country="DE")
    assert hit_id not in visible(mturk, "ANONE")
    assert can_accept(mturk, hit_id, "AGB", country="GB")
    assert not can_accept(mturk, hit_id, "ADE")
    assert client.list_hits()["HITs"][0]["HITId"] == hit_id


def test_locale_subdivision_and_not_equal(mturk, client):
    ny = [
        {
            "QualificationTypeId": LOCALE,
            "Comparator": "EqualTo",
            "LocaleValues": [{"Country": "US", "Subdivision": "NY"}],
        }
    ]
    not_us = [
        {
            "QualificationTypeId": LOCALE,
            "Comparator": "NotEqualTo",
            "LocaleValues": [{"Country": "US"}],
        }
    ]
    a = client.create_hit(**hit_params(QualificationRequirements=ny))["HIT"]["HITId"]
    b = client.create_hit(**hit_params(QualificationRequirements=not_us))["HIT"]["HITId"]
    assert not can_accept(mturk, a, "ACA", country="US", subdivision="CA")
    assert can_accept(mturk, a, "ANY", country="US", subdivision="NY")
    assert not can_accept(mturk, b, "ANY")
    assert can_accept(mturk, b, "AFR", country="FR")


def test_percent_approved_and_number_approved(mturk, client):
    req = [
        {
            "QualificationTypeId": PERCENT,
            "Comparator": "GreaterThanOrEqualTo",
            "IntegerValues": [95],
        },
        {"QualificationTypeId": NUMBER, "Comparator": "GreaterThan", "IntegerValues": [1000]},
    ]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert visible(mturk, "ALOW", percentApproved=90, numberApproved=5000)[hit_id] == (True, False)
    assert not can_accept(mturk, hit_id, "AFEW", percentApproved=99, numberApproved=10)
    assert can_accept(mturk, hit_id, "AGOOD", percentApproved=99, numberApproved=5000)


def test_new_worker_counts_as_100_percent_with_zero_hits_approved(mturk, client):
    req = [{"QualificationTypeId": PERCENT, "Comparator": "EqualTo", "IntegerValues": [100]}]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert can_accept(mturk, hit_id, "ANEW")
    req = [{"QualificationTypeId": NUMBER, "Comparator": "LessThan", "IntegerValues": [1]}]
    other = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert can_accept(mturk, other, "ANEW")


@pytest.mark.parametrize(
    ("comparator", "values", "allowed"),
    [
        ("Exists", [], {"A50", "A80"}),
        ("DoesNotExist", [], {"ANONE"}),
        ("EqualTo", [50], {"A50"}),
        ("NotEqualTo", [50], {"A80"}),
        ("LessThan", [80], {"A50"}),
        ("LessThanOrEqualTo", [80], {"A50", "A80"}),
        ("GreaterThan", [50], {"A80"}),
        ("GreaterThanOrEqualTo", [50], {"A50", "A80"}),
        ("In", [10, 80], {"A80"}),
        ("NotIn", [10, 80], {"A50"}),
    ],
)
def test_custom_qualification_with_every_comparator(mturk, client, comparator, values, allowed):
    type_id = qual_type(client)
    client.associate_qualification_with_worker(
        QualificationTypeId=type_id, WorkerId="A50", IntegerValue=50
    )
    client.associate_qualification_with_worker(
        QualificationTypeId=type_id, WorkerId="A80", IntegerValue=80
    )
    req = {"QualificationTypeId": type_id, "Comparator": comparator}
    if values:
        req["IntegerValues"] = values
    hit_id = client.create_hit(**hit_params(QualificationRequirements=[req], MaxAssignments=3))[
        "HIT"
    ]["HITId"]
    got = {w for w in ("A50", "A80", "ANONE") if can_accept(mturk, hit_id, w)}
    assert got == allowed


def test_actions_guarded_levels(mturk, client):
    type_id = qual_type(client)
    hits = {}
    for guard in ("Accept", "PreviewAndAccept", "DiscoverPreviewAndAccept"):
        req = [{"QualificationTypeId": type_id, "Comparator": "Exists", "ActionsGuarded": guard}]
        hits[guard] = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    seen = visible(mturk, "AOUTSIDER")
    assert seen[hits["Accept"]] == (True, False)
    assert seen[hits["PreviewAndAccept"]] == (False, False)
    assert hits["DiscoverPreviewAndAccept"] not in seen
    assert (
        mturk.get(f"/worker/hits/{hits['PreviewAndAccept']}", workerId="AOUTSIDER").status_code
        == 403
    )
    assert mturk.get(f"/worker/hits/{hits['Accept']}", workerId="AOUTSIDER").status_code == 200


def test_required_to_preview_means_preview_and_accept(mturk, client):
    type_id = qual_type(client)
    req = [{"QualificationTypeId": type_id, "Comparator": "Exists", "RequiredToPreview": True}]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    assert visible(mturk, "AOUTSIDER")[hit_id] == (False, False)


def test_revoked_qualification_no_longer_counts(mturk, client):
    type_id = qual_type(client)
    client.associate_qualification_with_worker(QualificationTypeId=type_id, WorkerId="AW1")
    req = [{"QualificationTypeId": type_id, "Comparator": "Exists"}]
    hit_id = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    client.disassociate_qualification_from_worker(QualificationTypeId=type_id, WorkerId="AW1")
    assert not can_accept(mturk, hit_id, "AW1")


def test_list_hits_for_qualification_type(client):
    type_id = qual_type(client)
    req = [{"QualificationTypeId": type_id, "Comparator": "Exists"}]
    with_q = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    client.create_hit(**hit_params())
    listed = client.list_hits_for_qualification_type(QualificationTypeId=type_id)["HITs"]
    assert [h["HITId"] for h in listed] == [with_q]


def test_worker_blocks(mturk, client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    client.create_worker_block(WorkerId="ABAD", Reason="spam")
    assert client.list_worker_blocks()["WorkerBlocks"] == [{"WorkerId": "ABAD", "Reason": "spam"}]
    assert hit_id not in visible(mturk, "ABAD")
    r = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="ABAD")
    assert r.status_code == 403 and r.json()["code"] == "WorkerBlocked"
    client.delete_worker_block(WorkerId="ABAD", Reason="appeal")
    assert client.list_worker_blocks()["NumResults"] == 0
    assert can_accept(mturk, hit_id, "ABAD")


def test_notify_workers(mturk, client):
    mturk.get("/worker/hits", workerId="AKNOWN")
    result = client.notify_workers(
        Subject="New batch", MessageText="Hello", WorkerIds=["AKNOWN", "AUNSEEN"]
    )
    failures = result["NotifyWorkersFailureStatuses"]
    assert [(f["WorkerId"], f["NotifyWorkersFailureCode"]) for f in failures] == [
        ("AUNSEEN", "HardFailure")
    ]
    messages = mturk.get("/worker/messages", workerId="AKNOWN").json()["Messages"]
    assert [(m["Subject"], m["MessageText"]) for m in messages] == [("New batch", "Hello")]


def test_notify_workers_takes_at_most_100_ids(client):
    with pytest.raises(ClientError) as info:
        client.notify_workers(
            Subject="s", MessageText="m", WorkerIds=[f"AW{i}" for i in range(101)]
        )
    assert "1 to 100 can be given" in str(info.value)


def test_groups_closed_to_each_other_by_does_not_exist_hide_and_refuse_the_other_group(
    mturk, client
):
    """Mutual exclusion as a study with arms uses it (docs/arms.md): each group's HITs require
    every other group's qualification not to exist, guarding discover, preview and accept. A
    worker in no group sees and may take both; once granted one group, the other group's HITs
    are gone from their list, their preview and accept are refused, and several requirements
    on one HIT must all be met (here: two DoesNotExist on one HIT type)."""
    groups = {name: qual_type(client, f"group {name}") for name in ("a", "b", "c")}
    hits = {}
    for name in groups:
        req = [
            {
                "QualificationTypeId": other,
                "Comparator": "DoesNotExist",
                "ActionsGuarded": "DiscoverPreviewAndAccept",
            }
            for g, other in groups.items()
            if g != name
        ]
        hits[name] = client.create_hit(**hit_params(QualificationRequirements=req))["HIT"]["HITId"]
    seen = visible(mturk, "ANEW")
    assert all(seen[h] == (True, True) for h in hits.values())
    client.associate_qualification_with_worker(
        QualificationTypeId=groups["b"], WorkerId="AINB", IntegerValue=1, SendNotification=False
    )
    seen = visible(mturk, "AINB")
    assert set(seen) & set(hits.values()) == {hits["b"]}
    for other in ("a", "c"):
        assert mturk.get(f"/worker/hits/{hits[other]}", workerId="AINB").status_code == 403
        refused = mturk.post(f"/worker/hits/{hits[other]}/accept", workerId="AINB")
        assert refused.status_code == 403 and refused.json()["code"] == "NotQualified"
    assert can_accept(mturk, hits["b"], "AINB")
    # granting the same again changes nothing; revoking it opens the other groups again
    client.associate_qualification_with_worker(
        QualificationTypeId=groups["b"], WorkerId="AINB", IntegerValue=1, SendNotification=False
    )
    assert set(visible(mturk, "AINB")) & set(hits.values()) == {hits["b"]}
    client.disassociate_qualification_from_worker(QualificationTypeId=groups["b"], WorkerId="AINB")
    assert can_accept(mturk, hits["a"], "AINB")


def test_notify_workers_refuses_a_long_subject_or_text_and_no_worker(client):
    """MTurk's limits: a subject of at most 200 characters, a text of at most 4,096, one to
    100 worker ids."""
    for subject, text in (("s" * 201, "m"), ("s", "m" * 4097)):
        with pytest.raises(ClientError) as info:
            client.notify_workers(Subject=subject, MessageText=text, WorkerIds=["AKNOWN"])
        assert "It must be at most" in str(info.value)
    with pytest.raises(ClientError) as info:
        client.notify_workers(Subject="s", MessageText="m", WorkerIds=[])
    assert "1 to 100 can be given" in str(info.value)


def test_notify_workers_keeps_each_message_at_its_longest(mturk, client):
    mturk.get("/worker/hits", workerId="AKNOWN")
    subject, text = "s" * 200, "m" * 4096
    answer = client.notify_workers(Subject=subject, MessageText=text, WorkerIds=["AKNOWN"])
    assert answer["NotifyWorkersFailureStatuses"] == []
    messages = mturk.get("/worker/messages", workerId="AKNOWN").json()["Messages"]
    assert [(m["Subject"], m["MessageText"]) for m in messages] == [(subject, text)]
