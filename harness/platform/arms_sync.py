"""Sync's part in a study with arms on MTurk (docs/arms.md, "Arms on MTurk").

- With MTurk hosting harness first sees a worker in their submissions. A worker without an arm
  is given the arm of the HIT they accepted first (`first_arms`, before any submission is
  stored, in the order of the workers' first accept, so arrival numbers follow arrivals; a
  submission read alone, from a notification, gives its HIT's arm: `claim_arm`).
- A submission on a HIT of another arm than its worker's is out of arm (`outside_arm`): its
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
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlmodel import Session, select

from harness.errors import HarnessError
from harness.hosting import Hosting
from harness.platform.arm_groups import join_all
from harness.platform.contract import Provider, PublishedUnit, Submission
from harness.store.arm_assignment import hit_arm, out_of_arm, record_arm, study_arms, worker_arm
from harness.store.database import session_scope
from harness.store.events import EventKind, event_logged, record_event
from harness.store.models import Event, Hit, StudyStatus
from harness.store.studies import LaunchedStudy
from harness.store.submissions import worker_row

if TYPE_CHECKING:
    from harness.platform.sync import SyncReport

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


def claim_arm(session: Session, study: LaunchedStudy, hit_id: int, worker_id: str) -> bool:
    """With MTurk hosting, a worker without an arm gets the HIT's (True when given now)."""
    if study.platform.hosting != Hosting.MTURK:
        return False  # external hosting: the task server gives arms, at random
    arm = hit_arm(session, hit_id)
    if arm is None:
        return False
    worker = worker_row(session, worker_id)
    assert worker.id is not None
    if worker_arm(session, study.id, worker.id) is not None:
        return False
    record_arm(session, study.id, worker.id, arm)
    return True


def outside_arm(
    session: Session, study: LaunchedStudy, hit: Hit, submission: Submission, report: SyncReport
) -> bool:
    """Whether the submission is out of its worker's arm (logged once, with the platform's
    answer document, and then counted in ``report``); with MTurk hosting a worker without an
    arm is given the HIT's first."""
    assert hit.id is not None
    claim_arm(session, study, hit.id, submission.worker_id)
    if not out_of_arm(session, study.id, hit.id, submission.worker_id):
        return False
    if not event_logged(
        session, EventKind.ASSIGNMENT_OUT_OF_ARM, submission.assignment_id, study.id
    ):
        report.out_of_arm.append(submission.assignment_id)
        worker = worker_row(session, submission.worker_id)
        assert worker.id is not None
        mine = worker_arm(session, study.id, worker.id)
        arm = hit_arm(session, hit.id)
        record_event(
            session,
            EventKind.ASSIGNMENT_OUT_OF_ARM,
            study_id=study.id,
            subject=submission.assignment_id,
            payload={
                "worker": submission.worker_id,
                "worker_arm": None if mine is None else mine.name,
                "hit": hit.platform_hit_id,
                "hit_arm": None if arm is None else arm.name,
                "answer": submission.answer,
            },
        )
    return True


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
    from harness.platform.actions import add_raters

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
