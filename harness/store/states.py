"""The closed sets the store keeps in columns (a study's, a HIT's, an assignment's, a
decision's, a slot's and a quarantined submission's states, and the event log's kinds), apart
from the ORM models so that a reader using SQLAlchemy Core (`harness.store.core`) needs no
model import.
"""

from __future__ import annotations

from enum import StrEnum

import sqlalchemy as sa


def by_value(kind: type[StrEnum], length: int) -> sa.Enum:
    """A column of ``kind`` stored as its members' values (``"external"``), not their names:
    for a closed set whose strings were stored before it was an enum, so old rows read back."""
    return sa.Enum(
        kind,
        native_enum=False,
        length=length,
        values_callable=lambda members: [m.value for m in members],
        validate_strings=True,
    )


class StudyStatus(StrEnum):
    DRAFT = "draft"
    LAUNCHING = "launching"
    RUNNING = "running"
    PAUSED = "paused"  # nobody new starts until it is resumed (`harness.platform.pause`)
    FINISHED = "finished"
    EXPIRED = "expired"


class HitStatus(StrEnum):
    PLANNED = "planned"  # intent recorded, not yet posted
    ASSIGNABLE = "assignable"
    UNASSIGNABLE = "unassignable"
    REVIEWABLE = "reviewable"
    REVIEWING = "reviewing"
    DISPOSED = "disposed"


class AssignmentStatus(StrEnum):
    ACCEPTED = "accepted"
    SUBMITTED = "submitted"
    APPROVED = "approved"
    REJECTED = "rejected"
    RETURNED = "returned"
    ABANDONED = "abandoned"


class DecisionState(StrEnum):
    """Where a screening decision stands. Only a raised flag whose action is not ``report`` is
    ever carried out: it starts ``pending``; one process at a time ``claimed`` it (a claim
    whose process is gone counts as abandoned, `harness.store.owners`); then ``applied``, or
    ``overruled`` by a person. Every other decision is ``recorded`` (evidence, nothing to do)."""

    RECORDED = "recorded"
    PENDING = "pending"
    CLAIMED = "claimed"
    APPLIED = "applied"
    OVERRULED = "overruled"


class EventKind(StrEnum):
    """Every kind of event harness logs (the ``kind`` column)."""

    # instruments and studies
    INSTRUMENT_FROZEN = "instrument.frozen"
    STUDY_CREATED = "study.created"
    STUDY_IMPORTED = "study.imported"  # a study brought home from a platform's files
    STUDY_EXPIRED = "study.expired"
    STUDY_FINISH_INTENT = "study.finish.intent"  # adaptive: every item done, work to close
    STUDY_FINISHED = "study.finished"  # ... and its HITs expired (its platform study stopped)
    STUDY_PAUSE_INTENT = "study.pause.intent"
    STUDY_PAUSED = "study.paused"
    STUDY_PAUSE_FAILED = "study.pause.failed"
    STUDY_RESUME_INTENT = "study.resume.intent"
    STUDY_RESUMED = "study.resumed"
    STUDY_RESUME_FAILED = "study.resume.failed"
    HITS_PLANNED = "hits.planned"
    # launch
    PREPARE_INTENT = "platform.prepare.intent"
    PREPARED = "platform.prepared"
    NOTIFICATIONS = "platform.notifications"
    HIT_CREATE_INTENT = "hit.create.intent"
    HIT_CREATED = "hit.created"
    HIT_COMPOSED = "hit.composed"  # adaptive collection added a HIT of the least certain items
    HIT_RECONCILED = "hit.reconciled"
    HIT_STATUS = "hit.status"
    HIT_EXPIRE_INTENT = "hit.expire.intent"
    HIT_EXPIRED = "hit.expired"
    WORKER_EXCLUDED = "worker.excluded"
    # submissions
    ASSIGNMENT_SUBMITTED = "assignment.submitted"
    ASSIGNMENT_RECOVERED = "assignment.recovered"
    ASSIGNMENT_STATUS = "assignment.status"
    ASSIGNMENT_INVALID = "assignment.invalid"
    AFTER_SUBMISSION_FAILED = "assignment.after_submission_failed"
    ASSIGNMENT_QUARANTINED = "assignment.quarantined"
    QUARANTINE_RESOLVED = "assignment.quarantine.resolved"
    # screening
    SCREENING_DECISION = "screening.decision"
    SCREENING_APPLIED = "screening.applied"
    SCREENING_OVERRULED = "screening.overruled"
    # review
    APPROVE_INTENT = "review.approve.intent"
    APPROVED = "review.approved"
    REJECT_INTENT = "review.reject.intent"
    REJECTED = "review.rejected"
    REJECT_REFUSED = "review.reject.refused"
    BONUS_INTENT = "review.bonus.intent"
    BONUS_PAID = "review.bonus"
    BLOCK_INTENT = "worker.block.intent"
    BLOCKED = "worker.blocked"
    UNBLOCK_INTENT = "worker.unblock.intent"
    UNBLOCKED = "worker.unblocked"
    MESSAGE_INTENT = "worker.message.intent"
    MESSAGED = "worker.messaged"
    REPLACE_INTENT = "review.replace.intent"
    REPLACED = "review.replaced"
    REPLACE_REFUSED = "review.replace.refused"
    # places (platforms whose participants harness allocates work to: Prolific, a study link)
    PLACES_OPEN_INTENT = "places.open.intent"
    PLACES_OPENED = "places.opened"
    PLACES_SET = "places.set"
    SLOT_RESERVED = "slot.reserved"
    SLOT_RELEASED = "slot.released"
    SLOT_OTHER_BROWSER = "slot.other_browser"  # tried from a browser that did not start it
    # a participant withdrew from the study (their judgments leave analysis and export)
    PARTICIPANT_WITHDREW = "participant.withdrew"
    WITHDRAWAL_RETURN = "participant.withdrew.return"  # the platform asked for the return
    ALLOCATION_REFUSED = "allocation.refused"
    RETURN_INTENT = "review.return.intent"
    RETURN_REQUESTED = "review.return.requested"
    BONUS_CREATED = "review.bonus.created"
    BONUS_PAY_INTENT = "review.bonus.pay.intent"
    BONUS_UNCERTAIN = "review.bonus.uncertain"
    # an attempt at a platform action (block, reject, return) that failed after its intent
    ACTION_FAILED = "platform.action.failed"
    # arms on a platform listing units one by one (MTurk): groups of workers, one per arm
    ARM_GROUP = "platform.arm.group"
    ARM_JOINED = "worker.arm.joined"
    ASSIGNMENT_OUT_OF_ARM = "assignment.out_of_arm"
    # the dashboard's logins (`harness.store.dashboard_logins`), shared by its processes
    DASHBOARD_LOGIN = "dashboard.login"
    DASHBOARD_LOGIN_FAILED = "dashboard.login.failed"
    DASHBOARD_LOGOUT = "dashboard.logout"


class SlotState(StrEnum):
    """Where one place of a HIT (one rater of its items) stands: ``open`` for the next arriving
    participant, ``reserved`` by one participant until ``expires_at`` (a reservation that
    expired can be taken by the next), ``submitted`` once its answers are stored."""

    OPEN = "open"
    RESERVED = "reserved"
    SUBMITTED = "submitted"


class QuarantineState(StrEnum):
    """Where a submission the platform could not vouch for stands: ``pending`` until the
    platform says who holds the assignment, then ``verified`` (its answers were stored as the
    assignment's judgments) or ``refused`` (the platform gave the assignment to someone else)."""

    PENDING = "pending"
    VERIFIED = "verified"
    REFUSED = "refused"
