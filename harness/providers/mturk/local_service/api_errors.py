"""Errors of the requester API, in the JSON shape MTurk sends them.

MTurk answers a failed call with HTTP 400 and `{"__type": ..., "Message": ..., "TurkErrorCode":
...}`; botocore reads `__type` into `Error.Code`. Its messages end with the server time in
milliseconds, e.g. `... (1563818969320 s)` (seen in aws/aws-sdk-java#2055); this service appends
the same suffix, from its own clock, to RequestError and ParameterValidationError messages.

Input that violates botocore's model is refused the way AWS's JSON front end does it: a missing
member gives `ValidationException` "1 validation error detected: Value null at 'requesterFeedback'
failed to satisfy constraint: Member must not be null" (boto/boto3#1222, from MTurk itself).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.providers.mturk.local_service import money


class ApiError(Exception):
    """An error answered to the requester: HTTP status, `__type`, message, TurkErrorCode."""

    status = 400
    error_type = "RequestError"
    timestamped = True

    def __init__(self, message: str, turk_code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.turk_code = turk_code

    def body(self, now_ms: int) -> dict[str, Any]:
        message = f"{self.message} ({now_ms} s)" if self.timestamped else self.message
        body: dict[str, Any] = {"__type": self.error_type, "Message": message}
        if self.turk_code:
            body["TurkErrorCode"] = self.turk_code
        return body


class RequestError(ApiError):
    """The request cannot be done in the current state (MTurk's `RequestError`)."""


class ParameterValidationError(ApiError):
    """A parameter has a value MTurk refuses (wrong id format, too long, out of range)."""

    error_type = "ParameterValidationError"


class ServiceFault(ApiError):
    """An internal failure (MTurk's `ServiceFault`)."""

    status = 500
    error_type = "ServiceFault"


class ValidationException(ApiError):
    """Input that violates the service model's constraints (missing member, too long, enum)."""

    error_type = "ValidationException"
    timestamped = False


class SerializationException(ApiError):
    """A member has the wrong JSON type (a string where a number belongs, and so on)."""

    error_type = "SerializationException"
    timestamped = False


class UnknownOperationException(ApiError):
    """The X-Amz-Target header names no operation of this service."""

    error_type = "UnknownOperationException"
    timestamped = False


class ThrottlingException(ApiError):
    """Too many requests (fault switch)."""

    error_type = "ThrottlingException"
    timestamped = False


class ServiceUnavailable(ApiError):
    """The service is unavailable (fault switch): HTTP 503."""

    status = 503
    error_type = "ServiceUnavailable"
    timestamped = False


def hit_not_found(hit_id: str) -> RequestError:
    return RequestError(f"Hit {hit_id} does not exist.", "AWS.MechanicalTurk.HITDoesNotExist")


def assignment_not_found(assignment_id: str) -> RequestError:
    return RequestError(
        f"Assignment {assignment_id} does not exist.", "AWS.MechanicalTurk.AssignmentDoesNotExist"
    )


def qualification_type_not_found(type_id: str) -> RequestError:
    return RequestError(
        f"QualificationType {type_id} does not exist.",
        "AWS.MechanicalTurk.QualificationTypeDoesNotExist",
    )


def invalid_value(value: object, parameter: str, reason: str = "") -> ParameterValidationError:
    extra = f" {reason}" if reason else ""
    return ParameterValidationError(
        f'The value "{value}" is not valid for the parameter {parameter}.{extra}',
        "AWS.MechanicalTurk.ParameterValidationError",
    )


# MTurk's own limits on a request's members, beyond those botocore's model states.


def check_range(p: dict[str, Any], name: str, low: int, high: int) -> None:
    if name in p and not low <= p[name] <= high:
        raise invalid_value(p[name], name, f"It must be between {low} and {high}.")


def check_length(p: dict[str, Any], name: str, most: int) -> None:
    if name in p and len(p[name]) > most:
        raise invalid_value(p[name][:40] + "...", name, f"It must be at most {most} characters.")


def amount(p: dict[str, Any], name: str) -> Decimal:
    """The member `name` as an amount of money (`money.parse`)."""
    try:
        return money.parse(p[name])
    except ValueError as exc:
        raise invalid_value(p[name], name, str(exc)) from exc
