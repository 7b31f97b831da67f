"""Qualification requirements: checking them when a HIT is made, enforcing them for workers.

System qualification types (ids from MTurk's API reference, "QualificationRequirement"):
Worker_Locale `00000000000000000071` (LocaleValues, country and optional subdivision),
Worker_PercentAssignmentsApproved `000000000000000000L0`, Worker_NumberHITsApproved
`00000000000000000040`, Worker_Adult `00000000000000000060`, and Masters, whose id differs
between the sandbox (`2ARFPLSP75KLA8M8DH1HTEQVJT3SY6`) and production
(`2F1QJWKUDD8XADTFD2Q0G6UTO95ALH`); both are known here and mean the same thing. Nobody is a
Master or has Worker_Adult unless the worker says so on the worker side (`master=1`,
`adult=1`), which is how a test grants them. Any other id must be a qualification type created
on this service.

ActionsGuarded: `Accept` (the default, also when RequiredToPreview is false) lets a worker who
fails the requirement find and preview the HIT but not accept it; `PreviewAndAccept` (also what
RequiredToPreview=true means) hides the preview; `DiscoverPreviewAndAccept` hides the HIT.

Chosen because MTurk does not document it: a worker without a value for a qualification fails
every comparator except DoesNotExist, including NotEqualTo and NotIn. A worker's approval rate
and approved-HIT count come from the worker's profile when one was given on the worker side,
otherwise from this service's history, where a worker with fewer than 100 decided assignments
counts as 100% approved (MTurk's treatment of new workers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import ParameterValidationError

LOCALE = "00000000000000000071"
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
ADULT = "00000000000000000060"
MASTERS_SANDBOX = "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"
MASTERS_PRODUCTION = "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"
MASTERS = (MASTERS_SANDBOX, MASTERS_PRODUCTION)
SYSTEM_TYPES = (LOCALE, PERCENT_APPROVED, NUMBER_APPROVED, ADULT, *MASTERS)
NO_VALUE = ("Exists", "DoesNotExist")
MANY_VALUES = ("In", "NotIn")
GUARD_LEVEL = {"Accept": 1, "PreviewAndAccept": 2, "DiscoverPreviewAndAccept": 3}


def _bad(i: int, message: str) -> ParameterValidationError:
    return ParameterValidationError(
        f"QualificationRequirements[{i}]: {message}", "AWS.MechanicalTurk.ParameterValidationError"
    )


def check_requirements(conn: Connection, requirements: list[dict[str, Any]]) -> None:
    """Refuse requirements that name unknown types or give values that do not fit the comparator."""
    for i, req in enumerate(requirements):
        type_id, comparator = req["QualificationTypeId"], req["Comparator"]
        if type_id not in SYSTEM_TYPES:
            known = conn.execute(
                select(models.qualification_types.c.id).where(
                    models.qualification_types.c.id == type_id
                )
            ).first()
            if known is None:
                raise _bad(i, f"QualificationType {type_id} does not exist.")
        ints, locales = req.get("IntegerValues") or [], req.get("LocaleValues") or []
        if type_id == LOCALE and ints:
            raise _bad(i, "the Locale qualification takes LocaleValues, not IntegerValues.")
        if type_id != LOCALE and locales:
            raise _bad(i, f"LocaleValues are only for the Locale qualification ({LOCALE}).")
        values = locales if type_id == LOCALE else ints
        if comparator in NO_VALUE and values:
            raise _bad(i, f"the {comparator} comparator takes no values.")
        if comparator in MANY_VALUES and not values:
            raise _bad(i, f"the {comparator} comparator needs at least one value.")
        if comparator not in NO_VALUE + MANY_VALUES and len(values) != 1:
            raise _bad(i, f"the {comparator} comparator needs exactly one value.")
        if type_id == LOCALE and comparator not in NO_VALUE + MANY_VALUES + (
            "EqualTo",
            "NotEqualTo",
        ):
            raise _bad(i, f"the Locale qualification cannot use the {comparator} comparator.")


def guard_level(req: dict[str, Any]) -> int:
    """1 guards accepting, 2 also previewing, 3 also discovering."""
    if "ActionsGuarded" in req:
        return GUARD_LEVEL[req["ActionsGuarded"]]
    return 2 if req.get("RequiredToPreview") else 1


@dataclass(frozen=True)
class WorkerView:
    """What a HIT's requirements are checked against, for one worker."""

    worker_id: str
    country: str | None
    subdivision: str | None
    percent_approved: int
    number_approved: int
    values: dict[str, int | None]  # granted custom qualifications: type id -> IntegerValue
    master: bool = False
    adult: bool = False


def worker_view(conn: Connection, worker_id: str) -> WorkerView:
    """What requirements are checked against, read in the request's transaction."""
    Q, A = models.qualifications, models.assignments
    profile = conn.execute(select(models.workers).where(models.workers.c.id == worker_id)).first()
    decisions: dict[str, int] = dict(
        conn.execute(
            select(A.c.status, func.count())
            .where(A.c.worker_id == worker_id, A.c.status.in_(("Approved", "Rejected")))
            .group_by(A.c.status)
        ).all()
    )
    approved = decisions.get("Approved", 0)
    decided = approved + decisions.get("Rejected", 0)
    percent = 100 if decided < 100 else (100 * approved) // decided
    if profile is not None and profile.percent_approved is not None:
        percent = profile.percent_approved
    if profile is not None and profile.number_approved is not None:
        approved = profile.number_approved
    granted = conn.execute(
        select(Q.c.type_id, Q.c.integer_value).where(
            Q.c.worker_id == worker_id, Q.c.status == "Granted"
        )
    )
    return WorkerView(
        worker_id=worker_id,
        country=None if profile is None else profile.country,
        subdivision=None if profile is None else profile.subdivision,
        percent_approved=percent,
        number_approved=approved,
        values={t: v for t, v in granted},
        master=bool(profile is not None and profile.master),
        adult=bool(profile is not None and profile.adult),
    )


# The comparators of a held value with the requirement's values (Exists and DoesNotExist are
# decided by whether there is a value at all).
COMPARE: dict[str, Callable[[int, list[int]], bool]] = {
    "In": lambda value, targets: value in targets,
    "NotIn": lambda value, targets: value not in targets,
    "EqualTo": lambda value, targets: value == targets[0],
    "NotEqualTo": lambda value, targets: value != targets[0],
    "LessThan": lambda value, targets: value < targets[0],
    "LessThanOrEqualTo": lambda value, targets: value <= targets[0],
    "GreaterThan": lambda value, targets: value > targets[0],
    "GreaterThanOrEqualTo": lambda value, targets: value >= targets[0],
}


def _locale_matches(worker: WorkerView, locale: dict[str, Any]) -> bool:
    if worker.country != locale["Country"]:
        return False
    return "Subdivision" not in locale or worker.subdivision == locale["Subdivision"]


def meets(worker: WorkerView, req: dict[str, Any]) -> bool:
    """Whether `worker` meets one requirement."""
    type_id: str = req["QualificationTypeId"]
    comparator: str = req["Comparator"]
    if type_id == LOCALE:
        if worker.country is None:
            return comparator == "DoesNotExist"
        if comparator in NO_VALUE:
            return comparator == "Exists"
        hit = any(_locale_matches(worker, loc) for loc in req.get("LocaleValues") or [])
        return hit if comparator in ("EqualTo", "In") else not hit
    if type_id == PERCENT_APPROVED:
        value: int | None = worker.percent_approved
    elif type_id == NUMBER_APPROVED:
        value = worker.number_approved
    elif type_id in MASTERS or type_id == ADULT:
        if not (worker.master if type_id in MASTERS else worker.adult):
            return comparator == "DoesNotExist"
        value = 1
    elif type_id in worker.values:
        value = worker.values[type_id]
    else:
        return comparator == "DoesNotExist"
    if comparator in NO_VALUE or value is None:
        return comparator == "Exists"
    return COMPARE[comparator](value, req.get("IntegerValues") or [])


def allowed(worker: WorkerView, requirements: list[dict[str, Any]]) -> int:
    """The highest action level the worker may take: 3 accept, 2 preview, 1 discover, 0 none.

    Each unmet requirement takes away the actions it guards.
    """
    level = 3
    for req in requirements:
        if not meets(worker, req):
            level = min(level, 3 - guard_level(req))
    return level
