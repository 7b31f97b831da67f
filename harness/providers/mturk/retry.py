"""Retry platform calls with exponential backoff and full jitter, only where repeating is safe.

A throttled call was refused before anything happened, so every call may be repeated after
throttling. A server fault, a 503 or a lost connection leaves it unknown whether the call took
effect: only calls that are safe to repeat (reads, calls carrying a UniqueRequestToken, calls
that set a state rather than add to one) are repeated then; the others raise, and their caller
reads the state back before deciding (see `MTurkProvider.approve`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from harness.errors import PlatformError

T = TypeVar("T")
THROTTLED = {
    "ThrottlingException",
    "Throttling",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "AWS.MechanicalTurk.RequestThrottled",
}
UNCERTAIN = {"ServiceUnavailable", "ServiceFault", "InternalFailure", "InternalServerError"}
LOST = (ConnectionClosedError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError)


def error_code(exc: ClientError) -> str:
    """MTurk's specific code (TurkErrorCode) when it gives one, else the AWS error code."""
    error = exc.response.get("Error", {})
    return str(exc.response.get("TurkErrorCode") or error.get("Code") or "")


def aws_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code") or "")


@dataclass
class Backoff:
    """Exponential backoff with full jitter: wait uniform(0, min(cap, base * 2**attempt))."""

    attempts: int = 10
    base: float = 0.1
    cap: float = 5.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int) -> float:
        return self.rng.uniform(0.0, min(self.cap, self.base * 2**attempt))

    def call(self, fn: Callable[..., T], *, safe: bool, **params: Any) -> T:
        """``fn(**params)``, repeated on throttling, and on uncertain failures when ``safe``."""
        for attempt in range(self.attempts):
            last = attempt == self.attempts - 1
            try:
                return fn(**params)
            except NoCredentialsError as exc:
                raise PlatformError(
                    "no AWS credentials found: set AWS_PROFILE (or AWS_ACCESS_KEY_ID and "
                    "AWS_SECRET_ACCESS_KEY) for the MTurk requester account"
                ) from exc
            except ClientError as exc:
                code = aws_code(exc)
                if last or not (code in THROTTLED or (safe and code in UNCERTAIN)):
                    raise
            except LOST:
                if last or not safe:
                    raise
            self.sleep(self.delay(attempt))
        raise AssertionError("unreachable")  # pragma: no cover
