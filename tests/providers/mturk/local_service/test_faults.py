"""Fault switches: throttling, ServiceUnavailable, latency; botocore retries switched off."""

from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError

from harness.providers.mturk.local_service.api_errors import ThrottlingException
from harness.providers.mturk.local_service.faults import FaultSwitches
from tests.providers.mturk.local_service.factories import LocalMTurk

# botocore's `max_attempts` counts retries; `total_max_attempts` counts every attempt.
NO_RETRY = {"retries": {"total_max_attempts": 1, "mode": "standard"}}


def test_throttle_share_of_one_throttles_every_call(mturk):
    client = mturk.client(**NO_RETRY)
    mturk.control("faults", {"throttle_share": 1.0})
    with pytest.raises(ClientError) as info:
        client.get_account_balance()
    assert info.value.response["Error"]["Code"] == "ThrottlingException"
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    mturk.control("faults", {"throttle_share": 0.0})
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_throttle_rate_refuses_calls_above_the_rate_within_a_second():
    now = [100.0]
    switches = FaultSwitches(throttle_rate=3, _clock=lambda: now[0])

    def outcome() -> str:
        try:
            switches.check()
        except ThrottlingException:
            return "throttled"
        return "ok"

    assert [outcome() for _ in range(5)] == ["ok", "ok", "ok", "throttled", "throttled"]
    now[0] += 0.999
    assert outcome() == "throttled"  # the first three still within the last second
    now[0] += 0.002
    assert [outcome() for _ in range(4)] == ["ok", "ok", "ok", "throttled"]


def test_a_throttled_call_reaches_boto3_as_mturks_throttling_error(mturk):
    client = mturk.client(**NO_RETRY)
    mturk.control("faults", {"throttle_rate": 0})  # every call is over the rate
    with pytest.raises(ClientError) as info:
        client.get_account_balance()
    assert info.value.response["Error"]["Code"] == "ThrottlingException"
    mturk.control("faults", {"throttle_rate": None})
    assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_service_unavailable_share(mturk):
    client = mturk.client(**NO_RETRY)
    mturk.control("faults", {"unavailable_share": 0.5, "seed": 7})
    codes = []
    for _ in range(40):
        try:
            client.get_account_balance()
            codes.append("ok")
        except ClientError as exc:
            assert exc.response["ResponseMetadata"]["HTTPStatusCode"] == 503
            codes.append(exc.response["Error"]["Code"])
    assert set(codes) == {"ok", "ServiceUnavailable"}
    assert 8 <= codes.count("ServiceUnavailable") <= 32


def test_botocore_retries_ride_over_an_occasional_fault(mturk):
    client = mturk.client(retries={"max_attempts": 10, "mode": "standard"})
    mturk.control("faults", {"unavailable_share": 0.3, "seed": 1})
    for _ in range(5):
        assert client.get_account_balance()["AvailableBalance"] == "10000.00"


def test_added_latency(mturk):
    client = mturk.client()
    client.get_account_balance()
    mturk.control("faults", {"latency_ms": 200})
    start = time.perf_counter()
    client.get_account_balance()
    assert time.perf_counter() - start >= 0.2


def test_unknown_fault_switch_is_refused(mturk):
    r = mturk.session.post(f"{mturk.url}/_control/faults", json={"explode": 1})
    assert r.status_code == 400
    assert "unknown fault switch(es): explode" in r.json()["error"]


def test_fault_switches_leave_the_worker_side_alone(tmp_path):
    service = LocalMTurk(tmp_path / "m.sqlite").start()
    try:
        service.control("faults", {"throttle_share": 1.0})
        assert service.get("/worker/hits", workerId="AW1").status_code == 200
    finally:
        service.stop()
