"""The study link, "connected": nothing to call. The harness store is the whole platform.

Approving, rejecting and paying bonuses change nothing outside harness; `harness.platform.
actions` records each in the event log (intent and result), which is what the researcher pays
from. A submission is as the store has it: the store's
status is checked before every action, so this provider only says "submitted". Blocking is the
store's ``worker.blocked`` event, which the allocator honours (`harness.store.allocation`);
pausing is the study's status in the store, which the entry page honours.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal

from harness.platform.contract import (
    PlacesStudy,
    Prepared,
    PublishedUnit,
    Submission,
    SubmissionState,
    UnitState,
    WorkSettings,
    WorkUnit,
)
from harness.providers.link.platform import LINK

NO_LIMIT = Decimal("1000000000.00")
"""The balance a study link reports: harness spends nothing on it (the budget still guards)."""


class LinkProvider:
    platform = LINK
    target = "link"

    def balance(self) -> Decimal:
        return NO_LIMIT

    def prepare(self, study_key: str, settings: WorkSettings, exclude_ref: str | None) -> Prepared:
        return Prepared("link", exclude_ref or f"link-blocked {study_key}")

    def watch(self, work_type_id: str, queue_url: str) -> None:
        return None

    def open_places(self, work_type_id: str, study: PlacesStudy) -> PublishedUnit:
        digest = hashlib.sha256(study.label.encode()).hexdigest()[:12]
        return PublishedUnit(f"link-{digest}", study.label, UnitState.ASSIGNABLE, study.places)

    def set_places(self, study_ref: str, places: int) -> None:
        return None  # the store's slots are the places

    def study_submissions(self, study_ref: str) -> list[Submission]:
        return []  # the task server stored everything there is

    def publish(self, work_type_id: str, unit: WorkUnit) -> PublishedUnit:
        raise NotImplementedError("a study link opens one study (open_places), not units")

    def published(self, label_prefix: str) -> list[PublishedUnit]:
        return []

    def unit(self, platform_id: str) -> PublishedUnit:
        return PublishedUnit(platform_id, None, UnitState.ASSIGNABLE, 0)

    def submissions(self, platform_id: str) -> list[Submission]:
        return []

    def submission(self, assignment_id: str) -> Submission | None:
        return Submission(assignment_id, "", "", SubmissionState.SUBMITTED, "")

    def approve(self, assignment_id: str, feedback: str | None = None) -> None:
        return None

    def reject(self, assignment_id: str, feedback: str) -> None:
        return None

    def bonus(
        self, worker_id: str, assignment_id: str, amount: Decimal, reason: str, token: str
    ) -> None:
        return None

    def exclude(self, exclude_ref: str, worker_id: str) -> None:
        return None

    def include(self, exclude_ref: str, worker_id: str) -> None:
        return None  # the allocator reads the log: the worker.unblocked event lets them in

    def pause(self, study_ref: str) -> None:
        return None  # the entry page reads the study's status in the store

    def resume(self, study_ref: str) -> None:
        return None

    def add_raters(self, platform_id: str, count: int, token: str) -> None:
        return None

    def expire(self, platform_id: str) -> None:
        return None
