"""Asking the platform whose an assignment is, before a submission counts.

A task page's ids (assignment, worker) come from its URL, which anyone can type. Only the
platform knows which worker it gave an assignment to: MTurk answers GetAssignment (through
`Provider.submission`) once the worker has completed the assignment there. So a posted
submission is

- ``verified`` when the platform says the assignment is the poster's, on this HIT: it counts;
- ``refused`` when the platform says it is someone else's, or another HIT's: nothing stored;
- ``unverified`` when the platform cannot say (not completed there yet, never launched, the
  platform unreachable): it is quarantined (`harness.store.quarantine`), and counts only once
  a later check (the task server's rechecks, `harness sync`) verifies it.

Platforms with places (Prolific, a study link) are not asked: harness itself gave the place to
the participant (`harness.store.allocation`), and the page's token binds both.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import partial

from sqlmodel import Session

from harness.answer import Answer
from harness.errors import HarnessError
from harness.platform.contract import (
    Arrival,
    ListingProvider,
    Provider,
    SessionsProvider,
    Submission,
)
from harness.platform.registry import connect
from harness.render.answers import AnswerFormatError
from harness.render.plan import HitPlan
from harness.store.models import (
    Hit,
    Study,
    StudyPlatform,
)
from harness.store.posted import KeptHit, KeptStudy, KeptWhere


class Verdict(StrEnum):
    VERIFIED = "verified"
    REFUSED = "refused"
    UNVERIFIED = "unverified"


@dataclass(frozen=True)
class Verification:
    """The platform's answer about one assignment, and why, in words for the log."""

    verdict: Verdict
    reason: str
    final: bool = True  # False: asking again later may give another answer
    # the answers the worker completed the assignment with on the platform (None: no copy)
    platform_answers: tuple[Answer, ...] | None = None
    # when the platform says the worker accepted (started) the assignment (None: not said)
    accepted_at: datetime | None = None


def verify(
    provider: Provider,
    assignment_id: str,
    worker_id: str,
    unit_id: str | None,
    plan: HitPlan | None = None,
) -> Verification:
    """Whether the platform gave ``assignment_id`` to ``worker_id`` on unit ``unit_id`` (with
    the platform's copy of the answers, read for ``plan``, when it has one)."""
    label = provider.platform.label
    try:
        found = provider.submission(assignment_id)
    except HarnessError as exc:
        return Verification(Verdict.UNVERIFIED, f"could not ask {label}: {exc}", final=False)
    if found is None:
        return Verification(
            Verdict.UNVERIFIED,
            f"{label} does not know assignment {assignment_id} as submitted (yet)",
            final=False,
        )
    return compare(found, worker_id, unit_id, label, provider.platform.read_answers, plan)


LIST_FROM = 2
"""Claims on one unit from which `verify_many` lists the unit's submissions (MTurk: one
listing call instead of a GetAssignment each)."""


def verify_many(
    provider: Provider,
    claims: Sequence[tuple[str, str]],
    unit_id: str,
    plan: HitPlan | None = None,
) -> list[Verification]:
    """`verify` for several (assignment, worker) claims on one unit, as one question when there
    are several: the unit's submitted assignments (MTurk: ListAssignmentsForHIT) instead of one
    GetAssignment each. An assignment the unit's list lacks is asked about on its own, so the
    answers are `verify`'s (one of another unit is refused, as `verify` refuses it). A listing
    is one call when the platform's provider reads a short page as the last
    (``listed_submissions``, MTurk's), else two (MTurk gives a NextToken with its last page
    too); fewer than `LIST_FROM` claims are asked about one by one."""
    if len(claims) < LIST_FROM:
        return [verify(provider, a, w, unit_id, plan) for a, w in claims]
    label = provider.platform.label
    listing = (
        provider.listed_submissions
        if isinstance(provider, ListingProvider)
        else provider.submissions
    )
    try:
        listed = {s.assignment_id: s for s in listing(unit_id)}
    except HarnessError as exc:
        return [
            Verification(Verdict.UNVERIFIED, f"could not ask {label}: {exc}", final=False)
            for _ in claims
        ]
    return [
        compare(listed[a], w, unit_id, label, provider.platform.read_answers, plan)
        if a in listed
        else verify(provider, a, w, unit_id, plan)
        for a, w in claims
    ]


def compare(
    found: Submission,
    worker_id: str,
    unit_id: str | None,
    label: str,
    read: Callable[[str, HitPlan], list[Answer]] | None = None,
    plan: HitPlan | None = None,
) -> Verification:
    """Whether the platform's ``found`` submission is ``worker_id``'s on unit ``unit_id``;
    ``read`` and ``plan`` read the platform's copy of the answers, when it holds one."""
    if found.worker_id != worker_id:
        return Verification(
            Verdict.REFUSED, f"{label} gave assignment {found.assignment_id} to another worker"
        )
    if unit_id is not None and found.unit_id != unit_id:
        return Verification(
            Verdict.REFUSED,
            f"{label} says assignment {found.assignment_id} belongs to another HIT",
        )
    copy = None
    if read is not None and plan is not None and found.answer:
        try:
            copy = tuple(read(found.answer, plan))
        except AnswerFormatError:
            copy = None
    return Verification(
        Verdict.VERIFIED,
        f"{label} confirms the worker and the HIT",
        platform_answers=copy,
        accepted_at=found.accepted_at,
    )


Connect = Callable[[StudyPlatform | KeptWhere, str], Provider]


def connect_platform(where: StudyPlatform | KeptWhere, target: str) -> Provider:
    """A provider for the platform and target a study was launched on."""
    return connect(where.provider, target, where.endpoint_url)


def shared_platform(where: StudyPlatform | KeptWhere, target: str) -> Provider:
    """The process's provider for the platform and target a study was launched on, shared
    with the after-submission work (`connect`'s shared one): what a task server verifies with, so
    that it keeps one client per platform (a boto3 client is thread-safe, and making one
    costs a session and a client class)."""
    return connect(where.provider, target, where.endpoint_url, shared=True)


class Verifier:
    """Asks the platform a study runs on about its assignments; one provider per platform and
    target, made on first use (thread-safe). ``connect`` makes providers (tests may point it
    at another local service)."""

    def __init__(self, connect: Connect = connect_platform) -> None:
        self._connect = connect
        self._providers: dict[tuple[str, str, str | None], Provider] = {}
        # study id -> its platform's provider: a study's platform, target and endpoint are
        # fixed by its launch, so its platform row is read once
        self._of_study: dict[int, Provider] = {}
        self._launched: set[int] = set()  # studies whose platform row exists
        self._lock = threading.Lock()

    def provider(self, where: StudyPlatform | KeptWhere, target: str) -> Provider:
        key = (where.provider, target, where.endpoint_url)
        with self._lock:
            found = self._providers.get(key)
            if found is None:
                found = self._providers[key] = self._connect(where, target)
            return found

    def arrival(
        self, where: KeptWhere, target: str, arrival: Arrival, study_ref: str | None
    ) -> Verification:
        """Whether the platform started the session a participant arrives with (Prolific: the
        session is theirs, on this study). A platform without sessions to ask about (a study
        link, whose sessions harness makes) vouches for every arrival."""
        if arrival.session_ref is None:
            return Verification(Verdict.VERIFIED, "harness makes this session")
        try:
            provider = self.provider(where, target)
        except HarnessError as exc:
            return Verification(Verdict.UNVERIFIED, f"could not connect: {exc}", final=False)
        if not isinstance(provider, SessionsProvider):
            return Verification(Verdict.VERIFIED, "the platform has no sessions to ask about")
        label = provider.platform.label
        try:
            found = provider.session_holder(arrival.session_ref)
        except HarnessError as exc:
            return Verification(Verdict.UNVERIFIED, f"could not ask {label}: {exc}", final=False)
        if found is None:
            return Verification(Verdict.REFUSED, f"{label} has no session {arrival.session_ref}")
        participant, study = found
        if participant != arrival.worker_id or (study_ref is not None and study != study_ref):
            return Verification(
                Verdict.REFUSED, f"{label}'s session {arrival.session_ref} is someone else's"
            )
        return Verification(Verdict.VERIFIED, f"{label} confirms the session")

    def at_submission(
        self, session: Session, study: KeptStudy, hit: KeptHit, assignment_id: str, worker_id: str
    ) -> Verification:
        """What is known of ``assignment_id`` and ``worker_id`` when their page posts the
        answers, without asking the platform: the page completes the assignment on MTurk only
        after this post is answered, so MTurk cannot vouch for it yet, and asking (a
        GetAssignment, with the request's transaction held open) would learn nothing. Unverified,
        to be rechecked (`harness.platform.submissions.rechecks.Rechecks`); finally so when no
        platform ever can (the study never launched, the HIT never posted)."""
        never = self._never(session, study, hit, [(assignment_id, worker_id)])
        if never is not None:
            return never[0]
        return Verification(
            Verdict.UNVERIFIED, NOT_YET.format(assignment=assignment_id), final=False
        )

    def asking_many(
        self, session: Session, study: Study, hit: Hit, claims: Sequence[tuple[str, str]]
    ) -> Callable[[], list[Verification]]:
        """What the study's platform says about each (assignment, worker) claim on ``hit``,
        asked at once (`verify_many`), in two steps: what the store knows is read now, in
        ``session``; the platform is asked when the function returned is called, which needs
        neither the session nor its transaction (a task server's rechecks hold no transaction
        open while the platform answers)."""
        assert study.id is not None
        never = self._never(session, study, hit, claims)
        if never is not None:
            return lambda: never
        provider = self._of_study.get(study.id)
        if provider is None:
            where = session.get(StudyPlatform, study.id)
            assert where is not None  # `_never` read it
            try:
                provider = self.provider(where, study.target)
            except HarnessError as exc:
                failed = f"could not connect to {where.provider}: {exc}"
                unverified = [Verification(Verdict.UNVERIFIED, failed, final=False) for _ in claims]
                return lambda: unverified
            self._of_study[study.id] = provider
        assert hit.platform_hit_id is not None
        plan = HitPlan.from_showings(hit.index, hit.items)
        return partial(verify_many, provider, list(claims), hit.platform_hit_id, plan)

    def _never(
        self,
        session: Session,
        study: Study | KeptStudy,
        hit: Hit | KeptHit,
        claims: Sequence[tuple[str, str]],
    ) -> list[Verification] | None:
        """The (final) answers when no platform can ever vouch for ``claims``: the study was
        never launched, or the HIT never posted; None when one may."""
        assert study.id is not None
        if study.id not in self._launched:
            if session.get(StudyPlatform, study.id) is not None:
                self._launched.add(study.id)  # a launch is never undone: read once
        if study.id not in self._launched:
            return [
                Verification(
                    Verdict.UNVERIFIED,
                    f"study {study.name} was never launched: no platform can vouch for "
                    f"assignment {assignment_id}",
                )
                for assignment_id, _ in claims
            ]
        if hit.platform_hit_id is None:
            never = f"HIT {hit.index} of {study.name} was never posted"
            return [Verification(Verdict.UNVERIFIED, never) for _ in claims]
        return None


NOT_YET = (
    "posted before the assignment was completed on the platform: not asked yet, rechecked "
    "(assignment {assignment})"
)
"""Why a submission is quarantined when it arrives (`Verifier.at_submission`)."""


class Vouches(Verifier):
    """Vouches for every assignment, asking nobody: only for pages with no platform behind them
    (a researcher's own preview on loopback, tests of what happens once a submission counts)."""

    def __init__(self, why: str = "no platform: the researcher's own preview") -> None:
        super().__init__()
        self._why = why

    def at_submission(
        self, session: Session, study: KeptStudy, hit: KeptHit, assignment_id: str, worker_id: str
    ) -> Verification:
        return Verification(Verdict.VERIFIED, self._why)

    def arrival(
        self, where: KeptWhere, target: str, arrival: Arrival, study_ref: str | None
    ) -> Verification:
        return Verification(Verdict.VERIFIED, self._why)
