"""What harness needs from a recruitment platform, independent of which one it is.

A provider publishes a study's units of work (MTurk: HITs), lists what workers submitted, and
approves, rejects, pays bonuses, blocks workers and adds raters. Launch, sync and review talk
only to this interface; `harness.platform.mturk` is the first provider. Another platform
(Prolific, a plain study link) needs a class with these methods, and no change to specs,
pages, the store, screening or reports.

Every method that creates something takes a caller-chosen ``token``: the same token means the
same request, so a repeated call after a crash or a lost answer cannot create a second one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Protocol

from harness.errors import PlatformError
from harness.platform.pricing import CostEstimate

__all__ = [
    "PlatformError",
    "Prepared",
    "Provider",
    "PublishedUnit",
    "Submission",
    "SubmissionState",
    "UnitState",
    "WorkSettings",
    "WorkUnit",
]


class UnitState(StrEnum):
    """A unit of work's state on the platform (MTurk's HIT statuses)."""

    ASSIGNABLE = "assignable"
    UNASSIGNABLE = "unassignable"
    REVIEWABLE = "reviewable"
    REVIEWING = "reviewing"
    DISPOSED = "disposed"


class SubmissionState(StrEnum):
    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True)
class WorkSettings:
    """What every unit of a study shares: what workers see about it, pay, time and who may take it.

    ``exclude_ref`` is the platform's reference for the group of workers who may not take the
    work (blocked ones, and workers of earlier studies), as returned by `Provider.prepare`.
    """

    title: str
    description: str
    keywords: Sequence[str]
    reward: Decimal
    assignment_duration: int  # seconds
    lifetime: int  # seconds
    auto_approval_delay: int  # seconds
    countries: Sequence[str] = ()
    min_approval_rate: int | None = None
    min_approved: int | None = None


@dataclass(frozen=True)
class WorkUnit:
    """One unit to publish: its index in the plan, the question document and its raters.

    ``token`` identifies the request (the same unit always gets the same token); ``label``
    identifies the unit on the platform (study and index), so it can be found again when the
    platform has forgotten the token.
    """

    index: int
    question: str
    assignments: int
    lifetime: int  # seconds the unit stays open
    token: str
    label: str


@dataclass(frozen=True)
class PublishedUnit:
    platform_id: str
    label: str | None
    state: UnitState
    assignments: int
    expires_at: datetime | None = None


@dataclass(frozen=True)
class Submission:
    """One worker's submitted work on one unit, as the platform reports it."""

    assignment_id: str
    unit_id: str
    worker_id: str
    state: SubmissionState
    answer: str  # the platform's answer document (MTurk: QuestionFormAnswers XML)
    accepted_at: datetime | None = None
    submitted_at: datetime | None = None
    auto_approves_at: datetime | None = None


@dataclass(frozen=True)
class Prepared:
    """The platform references a study's units are published under."""

    work_type_id: str
    exclude_ref: str
    created: list[str] = field(default_factory=list)  # what was created this time, for the log


class Provider(Protocol):
    """A recruitment platform (see the module docstring)."""

    name: str
    target: str

    def balance(self) -> Decimal:
        """Money available to spend."""
        ...

    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        """What ``units`` units of ``assignments_per_unit`` raters cost, fees included."""
        ...

    def bonus_cost(self, amount: Decimal) -> Decimal:
        """What paying a bonus of ``amount`` costs, fees included."""
        ...

    def prepare(self, study_key: str, settings: WorkSettings, exclude_ref: str | None) -> Prepared:
        """Create (or find) the work type and the exclusion group of a study (``study_key``:
        its name and launch id); ``exclude_ref`` when the group exists already."""
        ...

    def watch(self, work_type_id: str, queue_url: str) -> None:
        """Send the work type's events (submitted, approved, ...) to a queue."""
        ...

    def publish(self, work_type_id: str, unit: WorkUnit) -> PublishedUnit:
        """Publish one unit; publishing the same token again returns the unit already published."""
        ...

    def published(self, label_prefix: str) -> list[PublishedUnit]:
        """Every published unit whose label starts with ``label_prefix`` (all pages)."""
        ...

    def unit(self, platform_id: str) -> PublishedUnit: ...

    def submissions(self, platform_id: str) -> list[Submission]:
        """Every submission of a unit (all pages, every state)."""
        ...

    def submission(self, assignment_id: str) -> Submission | None:
        """One submission, or None when the platform does not know it (yet)."""
        ...

    def approve(self, assignment_id: str, feedback: str | None = None) -> None: ...

    def reject(self, assignment_id: str, feedback: str) -> None: ...

    def bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> None: ...

    def exclude(self, exclude_ref: str, worker_id: str) -> None:
        """Keep the worker from the study's remaining work, without telling them."""
        ...

    def add_raters(self, platform_id: str, count: int, token: str) -> None: ...

    def expire(self, platform_id: str) -> None:
        """Stop a unit taking new workers now; what was submitted stays."""
        ...
