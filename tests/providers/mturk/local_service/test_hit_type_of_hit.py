"""UpdateHITTypeOfHIT: a HIT takes on another HIT type's properties (API reference); how the
money follows is chosen here (docs/local-mturk.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.exceptions import ClientError

from tests.providers.mturk.local_service.factories import hit_params


def hit_type(client, reward="0.50", title="Rate word pairs", **extra):
    return client.create_hit_type(
        Title=title,
        Description="How similar?",
        Reward=reward,
        AssignmentDurationInSeconds=600,
        **extra,
    )["HITTypeId"]


def balance(client):
    return Decimal(client.get_account_balance()["AvailableBalance"])


def test_the_hit_takes_the_new_types_title_requirements_and_reward(mturk, client):
    old = hit_type(client)
    req = [{"QualificationTypeId": "00000000000000000071", "Comparator": "Exists"}]
    new = hit_type(
        client, reward="0.60", title="Rate word pairs (v2)", QualificationRequirements=req
    )
    hit_id = client.create_hit_with_hit_type(
        HITTypeId=old, MaxAssignments=3, LifetimeInSeconds=600, Question=hit_params()["Question"]
    )["HIT"]["HITId"]
    mturk.work(hit_id, "AW1")
    before = balance(client)
    client.update_hit_type_of_hit(HITId=hit_id, HITTypeId=new)
    hit = client.get_hit(HITId=hit_id)["HIT"]
    assert (hit["HITTypeId"], hit["Title"], hit["Reward"]) == (new, "Rate word pairs (v2)", "0.60")
    assert hit["QualificationRequirements"] == req
    # Three slots, none decided: each goes from 0.50 + 0.10 fee to 0.60 + 0.12 fee.
    assert before - balance(client) == Decimal("0.36")
    assert mturk.post(f"/worker/hits/{hit_id}/accept", workerId="ANOWHERE").status_code == 403


def test_decided_work_keeps_its_price_and_a_cheaper_type_refunds(mturk, client):
    old = hit_type(client, reward="1.00")
    hit_id = client.create_hit_with_hit_type(
        HITTypeId=old, MaxAssignments=2, LifetimeInSeconds=600, Question=hit_params()["Question"]
    )["HIT"]["HITId"]
    client.approve_assignment(AssignmentId=mturk.work(hit_id, "AW1"))
    before = balance(client)
    client.update_hit_type_of_hit(HITId=hit_id, HITTypeId=hit_type(client, reward="0.50"))
    assert balance(client) - before == Decimal("0.60")  # one open slot: 1.20 -> 0.60


def test_unknown_hit_or_hit_type_is_refused(client):
    hit_id = client.create_hit(**hit_params())["HIT"]["HITId"]
    with pytest.raises(ClientError) as info:
        client.update_hit_type_of_hit(HITId=hit_id, HITTypeId="NOSUCHTYPE")
    assert info.value.response["Error"]["Message"].startswith("HITType NOSUCHTYPE does not exist.")
    with pytest.raises(ClientError) as info:
        client.update_hit_type_of_hit(HITId="NOSUCHHIT", HITTypeId=hit_type(client))
    assert info.value.response["Error"]["Message"].startswith("Hit NOSUCHHIT does not exist.")
