"""MTurk's fee schedule and the account balance.

Published values: https://requester.mturk.com/pricing - 20% fee on rewards and bonuses, 20% more
for HITs with 10 or more assignments, $0.01 minimum per assignment or bonus.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.exceptions import ClientError

from harness.providers.mturk import pricing
from tests.providers.mturk.local_service.factories import hit_params


@pytest.mark.parametrize(
    ("reward", "assignments", "fee"),
    [
        ("1.00", 1, "0.20"),  # pricing page: a $1.00 reward pays a $0.20 fee
        ("1.00", 9, "0.20"),
        ("1.00", 10, "0.40"),  # 10 or more assignments: 20% + 20%
        ("0.04", 1, "0.01"),  # 20% of 4 cents is below the $0.01 minimum
        ("0.01", 10, "0.01"),
        ("0.50", 3, "0.10"),
        ("0.13", 1, "0.03"),  # 0.026 rounds half-up to 0.03
        ("0.00", 1, "0.00"),
    ],
)
def test_assignment_fee(reward, assignments, fee):
    assert pricing.assignment_fee(Decimal(reward), assignments) == Decimal(fee)


def test_bonus_fee_is_20_percent_with_a_one_cent_minimum():
    assert pricing.bonus_fee(Decimal("5.00")) == Decimal("1.00")
    assert pricing.bonus_fee(Decimal("0.02")) == Decimal("0.01")
    assert pricing.bonus_cost(Decimal("5.00")) == Decimal("6.00")


def test_hit_cost_total():
    cost = pricing.hit_cost(Decimal("0.50"), 10)
    assert (cost.fee, cost.per_assignment, cost.total) == (
        Decimal("0.20"),
        Decimal("0.70"),
        Decimal("7.00"),
    )


@pytest.mark.parametrize("text", ["-1", "0.001", "abc", "NaN"])
def test_parse_amount_refuses_non_amounts(text):
    with pytest.raises(ValueError):
        pricing.parse_amount(text)


def balance(client) -> Decimal:
    return Decimal(client.get_account_balance()["AvailableBalance"])


def test_creating_a_hit_charges_reward_plus_fee_per_assignment(client):
    client.create_hit(**hit_params(Reward="0.50", MaxAssignments=3))
    assert balance(client) == Decimal("10000.00") - 3 * Decimal("0.60")
    client.create_hit(**hit_params(Reward="0.50", MaxAssignments=10))
    assert balance(client) == Decimal("10000.00") - Decimal("1.80") - 10 * Decimal("0.70")


def test_rejection_refunds_and_deletion_returns_unused_slots(mturk, client):
    hit_id = client.create_hit(**hit_params(Reward="1.00", MaxAssignments=3))["HIT"]["HITId"]
    assert balance(client) == Decimal("9996.40")
    a = mturk.work(hit_id, "AWORKER1")
    b = mturk.work(hit_id, "AWORKER2")
    client.approve_assignment(AssignmentId=a)
    client.reject_assignment(AssignmentId=b, RequesterFeedback="no")
    assert balance(client) == Decimal("9997.60")
    client.update_expiration_for_hit(HITId=hit_id, ExpireAt=0)
    client.delete_hit(HITId=hit_id)
    assert balance(client) == Decimal("9998.80")  # only the approved assignment was paid


def test_bonus_and_additional_assignments_are_charged(mturk, client):
    hit_id = client.create_hit(**hit_params(Reward="0.50", MaxAssignments=1))["HIT"]["HITId"]
    a = mturk.work(hit_id, "AWORKER1")
    client.send_bonus(WorkerId="AWORKER1", BonusAmount="2.00", AssignmentId=a, Reason="r")
    assert balance(client) == Decimal("10000.00") - Decimal("0.60") - Decimal("2.40")
    client.create_additional_assignments_for_hit(HITId=hit_id, NumberOfAdditionalAssignments=2)
    assert balance(client) == Decimal("9997.00") - Decimal("1.20")


def test_insufficient_funds(mturk, client):
    mturk.control("balance", {"balance": "1.00"})
    with pytest.raises(ClientError) as info:
        client.create_hit(**hit_params(Reward="0.50", MaxAssignments=2))
    assert info.value.response["Error"]["Code"] == "RequestError"
    assert info.value.response["TurkErrorCode"] == "AWS.MechanicalTurk.InsufficientFunds"
    assert "it costs $1.20 and the available balance is $1.00" in str(info.value)
    assert balance(client) == Decimal("1.00")
    assert client.list_hits()["NumResults"] == 0


def test_starting_balance_is_configurable(tmp_path):
    from tests.providers.mturk.local_service.factories import LocalMTurk

    service = LocalMTurk(tmp_path / "m.sqlite", {"starting_balance": Decimal("5.00")}).start()
    try:
        assert service.client().get_account_balance()["AvailableBalance"] == "5.00"
    finally:
        service.stop()
