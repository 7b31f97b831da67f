"""NextToken/MaxResults on every list operation, as MTurk paged: a NextToken on every page with
results, none on the empty page after the last one (evidence in serialize.py's docstring)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st

from harness.providers.mturk.local_service.serialize import list_page
from tests.providers.mturk.local_service.factories import hit_params


def all_pages(call, key, **params):
    """Read pages the way boto3's paginators and Dallinger do: until NextToken is missing."""
    items, token, pages = [], None, []
    while True:
        page = call(MaxResults=2, **params, **({"NextToken": token} if token else {}))
        assert page["NumResults"] == len(page[key]) <= 2
        pages.append(len(page[key]))
        items += page[key]
        token = page.get("NextToken")
        if not token:
            assert pages[-1] == 0, "only the empty page after the last one has no NextToken"
            return items


def test_every_page_with_results_has_a_next_token_and_the_empty_page_none(client):
    for _ in range(3):
        client.create_hit(**hit_params())
    first = client.list_hits(MaxResults=2)
    second = client.list_hits(MaxResults=2, NextToken=first["NextToken"])
    third = client.list_hits(MaxResults=2, NextToken=second["NextToken"])
    assert (first["NumResults"], second["NumResults"], third["NumResults"]) == (2, 1, 0)
    assert "NextToken" in second  # a last page that is not full still has one
    assert "NextToken" not in third and third["HITs"] == []


def test_mephistos_outstanding_hits_loop_runs_unchanged(client):
    """mephisto/abstractions/providers/mturk/mturk_utils.py, get_outstanding_hits: it reads
    NextToken from every non-empty page and stops at the first empty one."""
    created = {client.create_hit(**hit_params())["HIT"]["HITId"] for _ in range(5)}
    new_hits = client.list_hits(MaxResults=2)
    all_hits = new_hits["HITs"]
    while len(new_hits["HITs"]) > 0:
        new_hits = client.list_hits(MaxResults=2, NextToken=new_hits["NextToken"])
        all_hits += new_hits["HITs"]
    assert {h["HITId"] for h in all_hits} == created


def test_boto3_paginator_reads_every_hit(client):
    created = [client.create_hit(**hit_params())["HIT"]["HITId"] for _ in range(5)]
    pages = client.get_paginator("list_hits").paginate(PaginationConfig={"PageSize": 2})
    assert [h["HITId"] for page in pages for h in page["HITs"]] == created


def test_an_empty_list_has_no_next_token(client):
    empty = client.list_hits()
    assert empty["NumResults"] == 0 and "NextToken" not in empty


def test_pages_stay_whole_when_hits_are_added_between_calls(client):
    first_ids = [client.create_hit(**hit_params())["HIT"]["HITId"] for _ in range(2)]
    first = client.list_hits(MaxResults=2)
    later = client.create_hit(**hit_params())["HIT"]["HITId"]
    rest = client.list_hits(MaxResults=2, NextToken=first["NextToken"])
    assert [h["HITId"] for h in first["HITs"]] == first_ids
    assert [h["HITId"] for h in rest["HITs"]] == [later]


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


def test_qualification_types_page(client):
    for i in range(3):
        client.create_qualification_type(
            Name=f"q{i}", Description="d", QualificationTypeStatus="Active"
        )
    types = all_pages(client.list_qualification_types, "QualificationTypes", MustBeRequestable=True)
    assert [t["Name"] for t in types] == ["q0", "q1", "q2"]


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


def test_assignments_for_hit_page(mturk, client):
    hit_id = client.create_hit(**hit_params(MaxAssignments=5))["HIT"]["HITId"]
    done = [mturk.work(hit_id, f"AW{i}") for i in range(5)]
    got = all_pages(client.list_assignments_for_hit, "Assignments", HITId=hit_id)
    assert [a["AssignmentId"] for a in got] == done


def test_max_results_above_100_is_refused_by_the_model(mturk):
    client = mturk.client(parameter_validation=False)
    with pytest.raises(ClientError) as info:
        client.list_hits(MaxResults=101)
    assert "Member must have value less than or equal to 100" in str(info.value)


@pytest.mark.parametrize("token", ["not-a-token", "eyJhZnRlciI6ICJ4In0=", "e30="])
def test_a_forged_next_token_is_a_parameter_validation_error(client, token):
    with pytest.raises(ClientError) as info:
        client.list_hits(NextToken=token)
    assert info.value.response["Error"]["Code"] == "ParameterValidationError"
    assert f'The value "{token}" is not valid for the parameter NextToken.' in str(info.value)


@given(n=st.integers(0, 40), size=st.integers(1, 100))
def test_pages_cover_every_item_once_in_order(n, size):
    items, seen, token, pages = list(range(n)), [], None, 0
    while True:
        page, extra = list_page(
            items, lambda i: i, {"MaxResults": size, **({"NextToken": token} if token else {})}
        )
        seen += page
        pages += 1
        token = extra.get("NextToken")
        assert (token is None) == (page == [])
        if token is None:
            break
    assert seen == items
    assert pages == -(-n // size) + 1
