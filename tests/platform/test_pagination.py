"""NextToken/MaxResults on every list operation, and the model's MaxResults bounds."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st

from harness.platform.mturk_local.serialize import paginate
from tests.platform.factories import hit_params


def all_pages(call, key, **params):
    items, token = [], None
    while True:
        page = call(MaxResults=2, **params, **({"NextToken": token} if token else {}))
        assert page["NumResults"] == len(page[key]) <= 2
        items += page[key]
        token = page.get("NextToken")
        if not token:
            return items


def test_worker_blocks_page(client):
    for i in range(5):
        client.create_worker_block(WorkerId=f"AW{i}", Reason="r")
    blocks = all_pages(client.list_worker_blocks, "WorkerBlocks")
    assert [b["WorkerId"] for b in blocks] == [f"AW{i}" for i in range(5)]


def test_workers_with_qualification_type_page(client):
    type_id = client.create_qualification_type(
        Name="q", Description="d", QualificationTypeStatus="Active"
    )["QualificationType"]["QualificationTypeId"]
    for i in range(5):
        client.associate_qualification_with_worker(QualificationTypeId=type_id, WorkerId=f"AW{i}")
    quals = all_pages(
        client.list_workers_with_qualification_type, "Qualifications", QualificationTypeId=type_id
    )
    assert [q["WorkerId"] for q in quals] == [f"AW{i}" for i in range(5)]


def test_bonus_payments_and_reviewable_hits_page(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=1))["HIT"]["HITId"]
    a = mturk.work(hit_id, "AW1")
    for i in range(5):
        client.send_bonus(WorkerId="AW1", BonusAmount="0.10", AssignmentId=a, Reason=f"r{i}")
    bonuses = all_pages(client.list_bonus_payments, "BonusPayments", HITId=hit_id)
    assert [b["Reason"] for b in bonuses] == [f"r{i}" for i in range(5)]
    for _ in range(4):
        client.update_expiration_for_hit(
            HITId=client.create_hit(**hit_params())["HIT"]["HITId"], ExpireAt=0
        )
    assert len(all_pages(client.list_reviewable_hits, "HITs")) == 5


def test_max_results_above_100_is_refused_by_the_model(mturk):
    client = mturk.client(parameter_validation=False)
    with pytest.raises(ClientError) as info:
        client.list_hits(MaxResults=101)
    assert "Member must have value less than or equal to 100" in str(info.value)


@given(n=st.integers(0, 40), size=st.integers(1, 100))
def test_pages_cover_every_item_once_in_order(n, size):
    items, seen, token = list(range(n)), [], None
    while True:
        page, extra = paginate(
            items, {"MaxResults": size, **({"NextToken": token} if token else {})}
        )
        seen += page
        token = extra.get("NextToken")
        if token is None:
            break
    assert seen == items
