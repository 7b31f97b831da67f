"""A platform that does nothing but remember, to show what adding a platform takes: this
subpackage, one line in `harness.platform.registry.PLATFORMS`, and its tests.

Units, submissions, approvals, rejections, bonuses and blocks live in this process's memory
(`NoopPlatform.world`); a test plays the workers by calling `accept` and `submit`. It charges
a flat 10% fee and knows one target, ``noop``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from harness.errors import InputError
from harness.hosting import Hosting
from harness.platform.contract import (
    Capabilities,
    CostEstimate,
    PlatformEvent,
    Prepared,
    Provider,
    PublishedUnit,
    Request,
    Submission,
    SubmissionState,
    UnitState,
    WorkSettings,
    WorkUnit,
)

FEE = Decimal("0.10")
CENT = Decimal("0.01")


@dataclass
class World:
    """Everything the no-op platform holds."""

    units: dict[str, PublishedUnit] = field(default_factory=dict)
    by_token: dict[str, str] = field(default_factory=dict)
    submissions: dict[str, Submission] = field(default_factory=dict)
    excluded: set[str] = field(default_factory=set)
    bonuses: dict[str, Decimal] = field(default_factory=dict)
    ids: Any = field(default_factory=lambda: itertools.count(1))


class NoopPlatform:
    name = "noop"
    label = "Noop"
    unit_noun = "task"
    targets: tuple[str, ...] = ("noop",)
    hostings: tuple[Hosting, ...] = (Hosting.EXTERNAL,)
    capabilities = Capabilities()  # nothing beyond what every platform does

    def __init__(self) -> None:
        self.world = World()

    def is_local(self, target: str) -> bool:
        return True

    def real_money(self, target: str) -> bool:
        return False

    def stand_in(self, target: str) -> str:
        return target

    def endpoint(self, target: str, endpoint_url: str | None) -> str | None:
        return None

    def connect(self, target: str, endpoint_url: str | None) -> Provider:
        return NoopProvider(self)

    def start_local(self, endpoint_url: str | None) -> str:
        return "the no-op platform needs no service"

    def local_service(self, port: int, state: str) -> None:
        return None

    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        n = units * assignments_per_unit
        fee = (reward * FEE).quantize(CENT, rounding=ROUND_HALF_UP)
        return CostEstimate(n, reward * n, fee * n)

    def bonus_cost(self, amount: Decimal) -> Decimal:
        return amount + (amount * FEE).quantize(CENT, rounding=ROUND_HALF_UP)

    def problems(self, settings: WorkSettings, hosting: str) -> list[tuple[str, str]]:
        if hosting not in self.hostings:
            return [("hosting", "the no-op platform shows only external pages")]
        return []

    def warnings(self, settings: WorkSettings, assignments_per_unit: int) -> list[str]:
        return []

    def raters_refusal(self, unit_id: str, current: int, new: int) -> str | None:
        return None

    def question(
        self,
        instrument: Any,
        plan: Any,
        *,
        hosting: str,
        public_url: str | None,
        study_name: str,
        target: str,
        endpoint_url: str | None,
    ) -> str:
        from harness.render.plan import hit_key

        return f"{public_url}/hit/{hit_key(study_name, plan.index)}"

    def read_answers(self, document: str, plan: Any) -> list[Any]:
        raise ValueError("the no-op platform hosts no pages")

    def read_fields(self, document: str) -> list[tuple[str, str]]:
        raise ValueError("the no-op platform hosts no pages")

    def dry_run(
        self, settings: WorkSettings, units: Sequence[WorkUnit], queue: str | None, study_key: str
    ) -> list[Request]:
        return [Request("publish", {"label": u.label, "url": u.question}) for u in units]

    def events(self, body: str) -> list[PlatformEvent]:
        return []  # it sends no notifications

    def queue_client(self, target: str, queue_url: str) -> Any:
        raise InputError("the no-op platform sends no notifications")

    # -- the workers' side, for tests ------------------------------------------------------
    def accept(self, unit_id: str, worker_id: str) -> str:
        if worker_id in self.world.excluded:
            raise PermissionError(f"{worker_id} is blocked")
        assignment = f"NA{next(self.world.ids):04d}"
        self.world.submissions[assignment] = Submission(
            assignment, unit_id, worker_id, SubmissionState.SUBMITTED, answer=""
        )
        return assignment


class NoopProvider:
    """The no-op platform, "connected"."""

    target = "noop"

    def __init__(self, platform: NoopPlatform) -> None:
        self._platform = platform

    @property
    def platform(self) -> NoopPlatform:
        return self._platform

    @property
    def world(self) -> World:
        """The platform's world as it is now: a process's shared provider outlives a test, and
        each test gives the platform a fresh world."""
        return self._platform.world

    def balance(self) -> Decimal:
        return Decimal("1000.00")

    def prepare(self, study_key: str, settings: WorkSettings, exclude_ref: str | None) -> Prepared:
        return Prepared("noop-type", exclude_ref or f"noop-exclude {study_key}")

    def watch(self, work_type_id: str, queue_url: str) -> None:
        pass

    def publish(self, work_type_id: str, unit: WorkUnit) -> PublishedUnit:
        found = self.world.by_token.get(unit.token)
        if found is not None:
            return self.world.units[found]
        unit_id = f"NU{next(self.world.ids):04d}"
        published = PublishedUnit(unit_id, unit.label, UnitState.ASSIGNABLE, unit.assignments)
        self.world.units[unit_id] = published
        self.world.by_token[unit.token] = unit_id
        return published

    def published(self, label_prefix: str) -> list[PublishedUnit]:
        return [u for u in self.world.units.values() if (u.label or "").startswith(label_prefix)]

    def unit(self, platform_id: str) -> PublishedUnit:
        return self.world.units[platform_id]

    def submissions(self, platform_id: str) -> list[Submission]:
        return [s for s in self.world.submissions.values() if s.unit_id == platform_id]

    def submission(self, assignment_id: str) -> Submission | None:
        return self.world.submissions.get(assignment_id)

    def _decide(self, assignment_id: str, state: SubmissionState) -> None:
        from dataclasses import replace

        current = self.world.submissions[assignment_id]
        self.world.submissions[assignment_id] = replace(current, state=state)

    def approve(self, assignment_id: str, feedback: str | None = None) -> None:
        self._decide(assignment_id, SubmissionState.APPROVED)

    def reject(self, assignment_id: str, feedback: str) -> None:
        self._decide(assignment_id, SubmissionState.REJECTED)

    def bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> None:
        self.world.bonuses.setdefault(token, amount)

    def exclude(self, exclude_ref: str, worker_id: str) -> None:
        self.world.excluded.add(worker_id)

    def add_raters(self, platform_id: str, count: int, token: str) -> None:
        from dataclasses import replace

        unit = self.world.units[platform_id]
        self.world.units[platform_id] = replace(unit, assignments=unit.assignments + count)

    def expire(self, platform_id: str) -> None:
        from dataclasses import replace

        unit = self.world.units[platform_id]
        self.world.units[platform_id] = replace(unit, state=UnitState.REVIEWABLE)


NOOP = NoopPlatform()
