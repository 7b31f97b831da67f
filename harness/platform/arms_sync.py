"""Sync's part in a study with arms on MTurk (docs/arms.md, "Arms on MTurk").

- With MTurk hosting harness first sees a worker in their submissions. A worker without an arm
  is given the arm of the HIT they accepted first (`first_arms`, before any submission is
  stored, in the order of the workers' first accept, so arrival numbers follow arrivals; a
  submission read alone, from a notification, gives its HIT's arm:
  `harness.platform.reconcile.claim_arm`).
- A submission on a HIT of another arm than its worker's is out of arm
  (`harness.platform.reconcile.outside_arm`, as each submission is reconciled): its
  judgments are not stored, so it counts in no arm; its assignment and the platform's status
  are (review pays it: the worker did the work), and the platform's answer document is kept in
  the event log (``assignment.out_of_arm``), so nothing collected is lost.
- After reading the platform, `settle_arms` puts every worker the platform was not told the arm
  of in their arm's group (`harness.platform.arm_groups.join_all`) and adds one assignment to
  each HIT for each out-of-arm submission it took, so every item still reaches the raters per
  item in every arm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel import select

from harness.errors import HarnessError
from harness.platform.actions import add_raters
from harness.platform.arm_groups import join_all
from harness.platform.contract import Provider, PublishedUnit, Submission
from harness.platform.reconcile import SyncReport, claim_arm
from harness.store.arm_assignment import study_arms
from harness.store.database import session_scope
from harness.store.events import EventKind
from harness.store.models import Event, Hit, StudyStatus
from harness.store.studies import LaunchedStudy

Fetched = tuple[int, PublishedUnit, list[Submission]]
"""A HIT's store id, its state on the platform and its submissions."""


def has_arms(engine: sa.Engine, study: LaunchedStudy) -> bool:
    with session_scope(engine) as session:
        return bool(study_arms(session, study.id))


def first_arms(engine: sa.Engine, study: LaunchedStudy, fetched: Sequence[Fetched]) -> int:
    """Give every worker without an arm the arm of the HIT they accepted first (MTurk
    hosting); how many got one now."""
    first: dict[str, tuple[float, str, int]] = {}
    for hit_id, _unit, submissions in fetched:
        for s in submissions:
            when = s.accepted_at or s.submitted_at
            key = (when.timestamp() if when is not None else math.inf, s.assignment_id, hit_id)
            if s.worker_id not in first or key < first[s.worker_id]:
                first[s.worker_id] = key
    given = 0
    with session_scope(engine) as session:
        for worker_id, (_when, _assignment, hit_id) in sorted(first.items(), key=lambda w: w[1]):
            given += claim_arm(session, study, hit_id, worker_id)
    return given


def settle_arms(
    engine: sa.Engine, provider: Provider, study: LaunchedStudy, report: SyncReport
) -> None:
    """Tell the platform the workers' arms it does not know yet, and replace the assignments
    out-of-arm submissions took (once each; not after the study expired)."""
    if not has_arms(engine, study):
        return
    joined = join_all(engine, provider, study.id)
    report.joined += joined.joined
    report.arm_failures += joined.failures
    with session_scope(engine) as session:
        taken = [
            (e.subject, str(e.payload.get("hit")))
            for e in session.exec(
                select(Event).where(
                    Event.study_id == study.id, Event.kind == EventKind.ASSIGNMENT_OUT_OF_ARM
                )
            )
        ]
    if study.study.status is StudyStatus.EXPIRED:
        return
    for assignment, platform_hit in taken:
        try:
            with session_scope(engine) as session:
                hit = session.exec(select(Hit).where(Hit.platform_hit_id == platform_hit)).first()
                if hit is None:
                    continue
                why = f"out of arm: replaces {assignment}"
                if add_raters(session, provider, study, hit, 1, why):
                    report.replaced += 1
        except HarnessError as exc:
            report.arm_failures.append(f"replacing {assignment}: {exc}")
