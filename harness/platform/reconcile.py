"""One submission a platform lists, reconciled with the store: what every sync shares.

With ``external`` hosting the task server has stored the judgments and sync records the
platform's status; with platform hosting (MTurk's ``mturk``) sync reads the answer document into
judgments, and the consent the page posted with them (a study asking one refuses answers without
it, as the task server does). When the store has no judgments for an assignment the platform
holds answers for (the task server missed it), they are recovered from the platform's answer
document. In a study with arms, work outside the worker's arm is stored in no arm
(`outside_arm`; the rest of sync's part in arms: `harness.platform.arms_sync`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlmodel import Session, select

from harness.answer import Answer
from harness.clock import utcnow
from harness.consent import Consent
from harness.hosting import Hosting
from harness.platform.actions import record_platform_status
from harness.platform.contract import Provider, Submission
from harness.platform.submissions.after_submission import AfterSubmission, run_after_submission
from harness.platform.submissions.settling import settle_submitted
from harness.render.answers import SKEW
from harness.render.consent import read_consent
from harness.render.plan import HitPlan
from harness.store.arm_assignment import hit_arm, out_of_arm, record_arm, worker_arm
from harness.store.events import EventKind, event_logged, record_event
from harness.store.models import Assignment, Hit, Judgment, aware
from harness.store.studies import LaunchedStudy
from harness.store.submissions import accept, store_submission, worker_row

if TYPE_CHECKING:  # render.instrument imports pandas
    from harness.render.instrument import Instrument

AnswerParser = Callable[[str, HitPlan], list[Answer]]
"""Reads a platform answer document into answers (`Platform.read_answers`)."""
AnswerChecker = Callable[[Hit, HitPlan, list[Answer]], list[str]]
"""Problems with a HIT's answers against its instrument (empty: valid)."""
ConsentReader = Callable[[Hit, Submission], Consent | None | list[str]]
"""The consent a submission's page posted (None: the study asks none), or what is wrong with it."""


@dataclass
class SyncReport:
    hits: int = 0
    submissions: int = 0
    stored: int = 0  # new submissions whose judgments were written now
    recovered: int = 0  # of those, external-mode answers the task server had missed
    status_changes: int = 0  # assignments whose status the platform changed
    hit_changes: int = 0  # HITs whose status or size the platform changed
    invalid: list[str] = field(default_factory=list)  # assignment ids with unreadable answers
    new: list[int] = field(default_factory=list)  # store ids of assignments stored now
    hook_failures: list[str] = field(default_factory=list)  # after_submission errors
    # a study with arms on MTurk (harness.platform.arms_sync)
    out_of_arm: list[str] = field(default_factory=list)  # new ones outside their worker's arm
    joined: int = 0  # workers the platform was told the arm of now
    replaced: int = 0  # assignments added for what out-of-arm submissions took
    arm_failures: list[str] = field(default_factory=list)  # what could not be done (retried)
    pause: str | None = None  # a pause or resume made on the platform, recorded now
    in_store: int | None = None  # the study's submitted assignments in the store after sync

    def line(self, study: str) -> str:
        arms = ""
        if self.out_of_arm or self.joined or self.replaced or self.arm_failures:
            arms = (
                f"; arms: {len(self.out_of_arm)} out-of-arm submissions (not counted), "
                f"{self.replaced} assignments added for them, {self.joined} workers given "
                f"their arm's qualification, {len(self.arm_failures)} failures"
            )
        pause = f"\n{self.pause}" if self.pause else ""
        store = ""
        if self.in_store is not None and self.in_store != self.submissions:
            store = f" listed by the platform, {self.in_store} in the store"
        return (
            f"{study}: {self.hits} HITs, {self.submissions} submitted assignments{store}; "
            f"{self.stored} stored now ({self.recovered} recovered from the platform), "
            f"{self.status_changes} assignment and {self.hit_changes} HIT status changes, "
            f"{len(self.invalid)} unreadable{arms}{pause}"
        )


@dataclass(frozen=True)
class SyncHooks:
    """How to read answers (platform-hosted pages), check them, read the consent given with
    them, and what to do after storing."""

    parse: AnswerParser | None = None
    check: AnswerChecker | None = None
    after_submission: AfterSubmission | None = None
    consent: ConsentReader | None = None

    @classmethod
    def of(
        cls,
        provider: Provider,
        instrument: Instrument,
        by_hit: Mapping[int, Instrument] | None = None,
    ) -> SyncHooks:
        """Answers read with the platform's codec and checked against the stored instrument
        (``by_hit``: a HIT's own, in a study with arms: its arm's), and the consent to its text
        read as the task server reads it (`harness.render.consent`)."""
        from harness.render.validation import check_answers  # pandas: not at import time

        def check(hit: Hit, plan: HitPlan, answers: list[Answer]) -> list[str]:
            used = (by_hit or {}).get(hit.id or 0, instrument)
            return list(check_answers(used, plan, answers))

        def consent(hit: Hit, submission: Submission) -> Consent | None | list[str]:
            text = (by_hit or {}).get(hit.id or 0, instrument).spec.consent
            if text is None:
                return None
            return read_consent(
                provider.platform.read_fields(submission.answer),
                text,
                opened=aware(hit.created_at),
                now=aware(submission.submitted_at) if submission.submitted_at else utcnow(),
                skew=SKEW,
            )

        return cls(parse=provider.platform.read_answers, check=check, consent=consent)


def run_hooks(
    engine: sa.Engine, study: LaunchedStudy, hooks: SyncHooks, report: SyncReport
) -> None:
    """Call the after-submission hook once for the assignments stored (and committed) since
    last called: it screens every stored assignment not screened yet, so one call, at the end
    of a sync, serves all its submissions. The judgments are safe by then: a failing hook is
    logged and reported (the assignments stay unscreened for the next call)."""
    pending, report.new = report.new, []
    if hooks.after_submission is None or not pending:
        return
    failure = run_after_submission(engine, hooks.after_submission, study, pending[-1])
    if failure is not None:
        report.hook_failures.append(f"assignments {', '.join(map(str, pending))}: {failure}")


def apply_submission(
    session: Session,
    study: LaunchedStudy,
    hit: Hit,
    submission: Submission,
    hooks: SyncHooks,
    report: SyncReport,
    *,
    arms: bool = True,
) -> None:
    """Store one platform submission: judgments if new, the platform's status if changed.
    ``arms`` False: the caller knows the study has no arms (no arm is looked up)."""
    report.submissions += 1
    hosting = study.platform.hosting
    # the study's row as read once, in the session (held: its identity map keeps objects only
    # while referenced), so that storing the answers does not read it again
    session.info.setdefault("study", session.merge(study.study, load=False))
    settled_now = settle_submitted(session, hit, submission, study.platform.provider, hooks.parse)
    for settled in settled_now.values():  # quarantined answers the platform now vouches for
        if settled is not None and settled.assignment_pk is not None:
            report.stored += 1
            report.new.append(settled.assignment_pk)
    assignment = assignment_named(session, submission.assignment_id)
    has_judgments = assignment is not None and _has_judgments(session, assignment)
    # a study with arms: work outside the worker's arm is counted in no arm
    outside = not has_judgments and arms and outside_arm(session, study, hit, submission, report)
    if not has_judgments and not outside and (hosting != Hosting.EXTERNAL or submission.answer):
        read = _read(session, study, hit, submission, hooks, report)
        if read is not None:
            answers, consent = read
            stored = store_submission(
                session,
                hit,
                submission.assignment_id,
                submission.worker_id,
                answers,
                submitted_at=submission.submitted_at,
                accepted_at=submission.accepted_at,
                consent=consent,
            )
            if stored.created:
                report.stored += 1
                if hosting == Hosting.EXTERNAL:
                    report.recovered += 1
                    record_event(
                        session,
                        EventKind.ASSIGNMENT_RECOVERED,
                        study_id=study.id,
                        subject=submission.assignment_id,
                        payload={"reason": "the task server had no judgments for it"},
                    )
                assignment = stored.assignment
                assert assignment.id is not None
                report.new.append(assignment.id)
    if assignment is None:
        assignment = accept(
            session, hit, submission.assignment_id, submission.worker_id, submission.accepted_at
        )[0]
    if record_platform_status(
        session, assignment, submission.state, study.id, submission.submitted_at
    ):
        report.status_changes += 1
    session.flush()


def _read(
    session: Session,
    study: LaunchedStudy,
    hit: Hit,
    submission: Submission,
    hooks: SyncHooks,
    report: SyncReport,
) -> tuple[list[Answer], Consent | None] | None:
    """The submission's answers and the consent given with them, or None (and an event, once)
    when they cannot be used."""
    if hooks.parse is None:
        return None
    plan = HitPlan.from_showings(hit.index, hit.items)
    consent = None
    try:
        answers = hooks.parse(submission.answer, plan)
        problems = hooks.check(hit, plan, answers) if hooks.check is not None else []
        given = hooks.consent(hit, submission) if hooks.consent is not None else None
        if isinstance(given, list):
            problems += given
        else:
            consent = given
    except ValueError as exc:
        problems = [str(exc)]
    if not problems:
        return answers, consent
    report.invalid.append(submission.assignment_id)
    if not event_logged(session, EventKind.ASSIGNMENT_INVALID, submission.assignment_id):
        record_event(
            session,
            EventKind.ASSIGNMENT_INVALID,
            study_id=study.id,
            subject=submission.assignment_id,
            payload={"worker": submission.worker_id, "problems": problems[:20]},
        )
    return None


def assignment_named(session: Session, platform_id: str) -> Assignment | None:
    """The stored assignment of the platform's id ``platform_id``, if any."""
    return session.exec(
        select(Assignment).where(Assignment.platform_assignment_id == platform_id)
    ).first()


def _has_judgments(session: Session, assignment: Assignment) -> bool:
    return (
        session.exec(
            select(Judgment.id).where(Judgment.assignment_id == assignment.id).limit(1)
        ).first()
        is not None
    )


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
