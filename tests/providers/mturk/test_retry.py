"""Backoff: throttling is retried for every call, uncertain failures only for safe ones."""

from __future__ import annotations

import random

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from harness.providers.mturk.retry import Backoff


def client_error(code: str, status: int = 400) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}},
        "CreateHIT",
    )


class Flaky:
    """Fails with the given errors in turn, then answers."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, **params):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return {"ok": params}


def backoff(**kwargs) -> tuple[Backoff, list[float]]:
    waits: list[float] = []
    return Backoff(sleep=waits.append, rng=random.Random(1), **kwargs), waits


@pytest.mark.parametrize("safe", [True, False])
def test_throttling_is_retried_for_every_call(safe):
    b, waits = backoff()
    fn = Flaky(client_error("ThrottlingException"), client_error("ThrottlingException"))
    assert b.call(fn, safe=safe, x=1) == {"ok": {"x": 1}}
    assert fn.calls == 3 and len(waits) == 2


@pytest.mark.parametrize(
    "error",
    [
        client_error("ServiceUnavailable", 503),
        client_error("ServiceFault", 500),
        EndpointConnectionError(endpoint_url="http://x"),
    ],
)
def test_uncertain_failures_are_retried_only_when_the_call_is_safe(error):
    b, _ = backoff()
    safe = Flaky(error)
    assert b.call(safe, safe=True) == {"ok": {}}
    unsafe = Flaky(error)
    with pytest.raises(type(error)):
        b.call(unsafe, safe=False)
    assert unsafe.calls == 1


def test_a_refusal_is_never_retried():
    b, waits = backoff()
    fn = Flaky(client_error("RequestError"))
    with pytest.raises(ClientError):
        b.call(fn, safe=True)
    assert fn.calls == 1 and waits == []


def test_waits_grow_exponentially_with_full_jitter_up_to_the_cap():
    b, waits = backoff(attempts=8, base=0.1, cap=2.0)
    fn = Flaky(*[client_error("ThrottlingException")] * 7)
    b.call(fn, safe=True)
    bounds = [min(2.0, 0.1 * 2**n) for n in range(7)]
    assert all(0 <= w <= bound for w, bound in zip(waits, bounds, strict=True))
    assert len(set(waits)) == 7  # jittered, not a fixed schedule


def test_it_gives_up_after_the_last_attempt():
    b, waits = backoff(attempts=3)
    fn = Flaky(*[client_error("ThrottlingException")] * 5)
    with pytest.raises(ClientError):
        b.call(fn, safe=True)
    assert fn.calls == 3 and len(waits) == 2
