"""What harness needs from a recruitment platform, independent of which one it is.

Two objects per platform, both behind this module's protocols:

- a `Platform` says what harness must know before connecting: its targets, its fees and
  limits, what its question documents and answer documents look like, what a dry run would
  send, how its notifications read, and in its `Capabilities` all it may do beyond that. It
  imports nothing heavy (`harness validate`, `--dry-run` and `harness --help` use it without a
  network client);
- a `Provider`, made for one target by `harness.platform.registry.connect` (which calls
  `Platform.connect`), publishes a study's units of work
  (MTurk: HITs), lists what workers submitted, and approves, rejects, pays bonuses, blocks
  workers and adds raters.

Launch, sync, review, status and expire talk only to these; `harness.platform.registry` names
the platforms. What a platform may do beyond them is declared here, never read by name: flags
and what it adds to harness in `Capabilities`, optional methods as protocols (`WorkerSites`,
`GroupPages`, `PlacesPlatform`, `Pauses`, ...). A new platform is one subpackage with a
`Platform` and a `Provider`, plus one registry line, and no change to specs, pages, the store,
screening or reports.

Every method that creates something takes a caller-chosen ``token``: the same token means the
same request, so a repeated call after a crash or a lost answer cannot create a second one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.hosting import Hosting

if TYPE_CHECKING:
    from harness.answer import Answer
    from harness.render.instrument import Instrument
    from harness.render.plan import HitPlan


@dataclass(frozen=True)
class CostEstimate:
    """What work costs before it is posted: rewards and the platform's fees, over assignments."""

    assignments: int
    rewards: Decimal
    fees: Decimal

    @property
    def total(self) -> Decimal:
        return self.rewards + self.fees


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
    RETURNED = "returned"  # places: the participant gave the place back (Prolific RETURNED)
    TIMED_OUT = "timed_out"  # places: the participant ran out of time (Prolific TIMED-OUT)


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
    keep_out: Sequence[str] = ()  # groups (`GroupsProvider`) whose workers may not take it
    currency: str = "USD"  # of ``reward`` (and every amount of the study): the account's
    project: str | None = None  # where the platform files the study, if it has projects


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


@dataclass(frozen=True)
class Prepared:
    """The platform references a study's units are published under."""

    work_type_id: str
    exclude_ref: str
    created: list[str] = field(default_factory=list)  # what was created this time, for the log


class EventTopic(StrEnum):
    """What a platform notification is about, as far as sync cares."""

    SUBMISSION = "submission"  # a submission's state changed: look the submission up
    UNIT = "unit"  # a unit's state changed: look the unit up
    OTHER = "other"  # nothing sync stores (accepted, returned, a test event)


@dataclass(frozen=True)
class PlatformEvent:
    """One notification, reduced to what to look up on the platform. A notification says what
    happened; the platform says what is true now. ``unit_id`` is None for events about no unit
    (e.g. a test event)."""

    topic: EventTopic
    unit_id: str | None
    assignment_id: str | None = None


@dataclass(frozen=True)
class LocalService:
    """A local platform service: the ``harness`` command that runs it, and the path that
    answers once it is up."""

    command: list[str]
    probe: str
    name: str


@dataclass(frozen=True)
class Request:
    """One call a launch would make, as a dry run prints it."""

    operation: str
    params: dict[str, Any]


@dataclass(frozen=True)
class LocalCommand:
    """The ``harness`` command that runs a platform's local service (a test double of the
    remote platform): its name, its click command as ``"module:attribute"`` (imported only
    when it runs) and its help's first sentence (for ``harness --help``, which imports none)."""

    name: str
    command: str
    summary: str


@dataclass(frozen=True)
class DemoEntry:
    """How `harness demo` runs on a platform: ``name``, its ``--platform`` choice; ``target``,
    the platform's local target it launches on; ``says``, what the choice is (the option's
    help); ``crowd_size``, how many simulated people come; ``rank``, its place among the
    choices (the first is the default)."""

    name: str
    target: str
    says: str
    crowd_size: int
    rank: int


@dataclass(frozen=True)
class Capabilities:
    """Everything a platform may do beyond what every platform does, and what it adds to
    harness, declared in one place: each `Platform` carries one (``platform.capabilities``);
    what it leaves out is the default. Optional methods are the protocols below
    (`GroupsProvider`, `PlacesPlatform`, `WorkerSites`, ...)."""

    pays: bool = True  # approvals and bonuses move money (a study link only records them)
    asks_returns: bool = False  # its provider asks participants to return work (`ReturnAsker`)
    arm_groups: bool = False  # keeps a worker to one arm's units (`GroupsProvider`)
    one_submission_per_study: bool = False  # a participant takes part in a study once
    pausing: Pausing | None = None  # what a pause does (None: it cannot pause; `pausing`)
    messaging: Messaging | None = None  # how a worker is written to (None: not; `messaging`)
    crowd_door: str | None = None  # "module:attribute" of how simulated participants arrive
    local_command: LocalCommand | None = None  # the command running its local service
    blueprints: tuple[str, ...] = ()  # "module:attribute" of Flask blueprints the server mounts
    demo: DemoEntry | None = None  # how `harness demo` runs on it (None: it does not)
    # "module:attribute" of a function a task server calls before it forks, to load what its
    # provider is slow to load on first use (e.g. boto3's service model)
    preload: str | None = None
    auto_approves: bool = False  # approves what nobody decided, the spec's auto_approval_delay on
    # approves what nobody decided this long after it was submitted, whatever the spec says
    auto_approval_window: timedelta | None = None


class Platform(Protocol):
    """A recruitment platform before connecting to it (see the module docstring)."""

    name: str  # the registry's key, e.g. "mturk"
    label: str  # for people, e.g. "MTurk"
    unit_noun: str  # what a unit of work is called there, e.g. "HIT"
    targets: tuple[str, ...]  # e.g. ("local", "sandbox", "production"); unique across platforms
    hostings: tuple[Hosting, ...]  # the spec's hosting modes it can run
    capabilities: Capabilities  # what it may do beyond this protocol

    def is_local(self, target: str) -> bool:
        """Whether ``target`` is harness's own local service (no account, no money)."""
        ...

    def real_money(self, target: str) -> bool:
        """Whether work posted on ``target`` is paid with real money (it must then be named on
        the command line, and its cost typed back)."""
        ...

    def stand_in(self, target: str) -> str:
        """Where a spec's real-money ``target`` launches unless named on the command line."""
        ...

    def endpoint(self, target: str, endpoint_url: str | None) -> str | None:
        """The endpoint to store with a study on ``target`` (None: the target's fixed one)."""
        ...

    def connect(self, target: str, endpoint_url: str | None) -> Provider:
        """A provider talking to ``target``."""
        ...

    def start_local(self, endpoint_url: str | None) -> str:
        """Start the local service at ``endpoint_url`` unless it answers; say what happened."""
        ...

    def local_service(self, port: int, state: str) -> LocalService | None:
        """How to run this platform's local service on loopback ``port`` with its state in the
        file ``state`` (None: the platform needs none, e.g. a study link)."""
        ...

    def estimate(self, reward: Decimal, units: int, assignments_per_unit: int) -> CostEstimate:
        """What ``units`` units of ``assignments_per_unit`` raters cost, fees included."""
        ...

    def bonus_cost(self, amount: Decimal) -> Decimal:
        """What paying a bonus of ``amount`` costs, fees included."""
        ...

    def problems(self, settings: WorkSettings, hosting: Hosting) -> list[tuple[str, str]]:
        """What this platform cannot run: (spec field, message) pairs, e.g. a reward below its
        minimum; empty when it can run the study."""
        ...

    def warnings(self, settings: WorkSettings, assignments_per_unit: int) -> list[str]:
        """Limits a researcher must know before posting (they cannot be undone later)."""
        ...

    def raters_refusal(self, unit_id: str, current: int, new: int) -> str | None:
        """Why a unit of ``current`` raters cannot grow to ``new`` (None: it can)."""
        ...

    def question(
        self,
        instrument: Instrument,
        plan: HitPlan,
        *,
        hosting: Hosting,
        public_url: str | None,
        study_name: str,
        target: str,
        endpoint_url: str | None,
    ) -> str:
        """The question document a unit is published with on ``target`` (MTurk: ExternalQuestion
        or HTMLQuestion XML, whose page posts only to the target's worker site);
        `harness.render.question.QuestionTooLarge` past the platform's size."""
        ...

    def read_answers(self, document: str, plan: HitPlan) -> list[Answer]:
        """A submission's answer document as answers (platform-hosted pages)."""
        ...

    def read_fields(self, document: str) -> list[tuple[str, str]]:
        """A submission's answer document as the fields its page posted, answers and all (the
        consent is read from them: `harness.render.consent`)."""
        ...

    def dry_run(
        self, settings: WorkSettings, units: Sequence[WorkUnit], queue: str | None, study_key: str
    ) -> list[Request]:
        """The exact requests a launch would send (what is not known yet shown as <...>)."""
        ...

    def events(self, body: str) -> list[PlatformEvent]:
        """A notification message's body as events, every event it holds (empty for a body
        that is not a notification)."""
        ...

    def queue_client(self, target: str, queue_url: str) -> Any:
        """A client of the queue ``queue_url`` that ``target``'s notifications go to
        (``receive_message`` and ``delete_message`` as SQS has them); a local target's queue
        must be local too (`InputError` otherwise): nothing reaches a real cloud from it."""
        ...


class Provider(Protocol):
    """A recruitment platform, connected (see the module docstring)."""

    target: str

    @property
    def platform(self) -> Platform:
        """What the platform is, apart from this connection (fees, limits, documents)."""
        ...

    def balance(self) -> Decimal:
        """Money available to spend."""
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


@runtime_checkable
class GroupsProvider(Protocol):
    """A platform that can keep workers to one part of a study's work: a named group the
    platform knows workers by, and work closed to the workers of other groups
    (`WorkSettings.keep_out`). MTurk: a qualification type per group, which work closed to it
    requires not to exist. A study with arms on MTurk uses one group per arm (docs/arms.md)."""

    def make_group(self, study_key: str, group: str) -> str:
        """Create (or find, after a lost answer) the study's group ``group``; its reference."""
        ...

    def join_group(self, group_ref: str, worker_id: str, *, once: bool = False) -> None:
        """Put the worker in the group (without telling them; repeating changes nothing);
        ``once``: one attempt, no retries (a worker is waiting for a page)."""
        ...


@runtime_checkable
class WorkerSites(Protocol):
    """A platform whose worker site sends workers to harness's task pages (MTurk) or is where
    they go after submitting (Prolific)."""

    def worker_origins(self, target: str, endpoint_url: str | None) -> tuple[str, ...]:
        """The origins of the worker site on ``target``: the only ones a task page may post
        to, be framed by or send a participant on to."""
        ...


@runtime_checkable
class GroupPages(Protocol):
    """A platform with a page for people per work type (MTurk's HIT group page)."""

    def group_url(self, target: str, work_type_id: str) -> str | None:
        """That page on ``target`` (None: the target has none, e.g. a local service)."""
        ...


@runtime_checkable
class ListingProvider(Protocol):
    """A provider with a cheaper listing of a unit's submissions for verification than
    `Provider.submissions` (MTurk: a short page is the last)."""

    def listed_submissions(self, platform_id: str) -> list[Submission]: ...


@runtime_checkable
class SessionsProvider(Protocol):
    """A provider that can say whose a session is before it is submitted (Prolific)."""

    def session_holder(self, session_id: str) -> tuple[str, str] | None:
        """(participant id, study id) of the session in any state; None when the platform has
        no such session."""
        ...


# -- platforms with places ------------------------------------------------------------------
# Prolific and a study link publish one study with places, not one unit per HIT: harness's
# task server gives each arriving participant a slot (`harness.store.allocation`). A platform
# that works this way implements these two protocols on top of the ones above; launch, sync,
# review and the participant pages ask ``isinstance(x, PlacesPlatform / PlacesProvider)``, so
# MTurk and any other unit-based platform need nothing new.


@dataclass(frozen=True)
class Arrival:
    """Who arrived at a study's entry page, as the platform's URL parameters say."""

    worker_id: str
    session_ref: str | None  # the platform's id of this session (None: harness makes one)
    study_ref: str | None = None  # the platform's id of the study they came from (checked)


@dataclass(frozen=True)
class PlacesStudy:
    """The one study a places platform publishes for a harness study."""

    label: str  # finds the study again (the platform's internal name)
    places: int  # every slot of every HIT
    url: str  # the entry page participants are sent to (harness's /p/<study>)
    completion_code: str
    settings: WorkSettings
    exclude_ref: str  # the group of participants who may not take part


@runtime_checkable
class PlacesPlatform(Platform, Protocol):
    """A platform whose participants harness allocates work to (see above)."""

    def arrival(self, args: Mapping[str, str]) -> Arrival:
        """The participant in an entry page's query parameters; `InputError` (with what to do)
        when the parameters do not name one."""
        ...

    def completion_url(self, target: str, endpoint_url: str | None, code: str) -> str | None:
        """Where a participant goes after submitting (Prolific: its completion URL with the
        code); None: harness shows the code on a page of its own."""
        ...


@runtime_checkable
class PlacesProvider(Protocol):
    """A places platform, connected."""

    def open_places(self, work_type_id: str, study: PlacesStudy) -> PublishedUnit:
        """Create and publish the study, or find it (by its label) when an earlier run did; the
        unit's ``platform_id`` is the platform's study id."""
        ...

    def set_places(self, study_ref: str, places: int) -> None:
        """Make the study have ``places`` places in all (idempotent: a total, not a delta)."""
        ...

    def study_submissions(self, study_ref: str) -> list[Submission]:
        """Every submission of the study (all pages) that was submitted, decided, returned or
        timed out; ``assignment_id`` is the session id the participant arrived with."""
        ...


@runtime_checkable
class AnonymousEntry(PlacesPlatform, Protocol):
    """A places platform whose participants may arrive without an id (a study link)."""

    def anonymous_query(self, args: Mapping[str, str]) -> dict[str, str] | None:
        """The entry page's query with an anonymous id for a participant who came without one;
        None when they gave one."""
        ...

    def again_query(self, worker_id: str) -> dict[str, str]:
        """The entry page's query that brings the same participant back for another part."""
        ...


# -- pausing ----------------------------------------------------------------------------------
# Pausing is a capability, not part of every platform: MTurk's API has none. A platform that
# can pause says what a pause does there (``Capabilities.pausing``, read by `pausing`: the
# dashboard and the CLI say it without connecting) and its provider implements `Pauses`.


@dataclass(frozen=True)
class Pausing:
    """What pausing a study does on a platform, for people, or why it cannot be paused.

    ``at_entry``: the platform has no pause of its own (a study link): harness's entry page
    turns new arrivals away while the study is paused.
    """

    can: bool
    says: str
    at_entry: bool = False


def pausing(platform: Platform) -> Pausing:
    """What pausing does on ``platform`` (one whose capabilities name none cannot pause)."""
    found = platform.capabilities.pausing
    return found or Pausing(False, f"{platform.label} has no pause that harness can use")


@runtime_checkable
class Pauses(Protocol):
    """A provider that can stop a published study taking new workers and start it again,
    without touching work under way or submitted. Both calls are idempotent: pausing a paused
    study (or resuming a running one) changes nothing; `PlatformError` when the platform says
    the study cannot make that move (e.g. it was stopped for good)."""

    def pause(self, study_ref: str) -> None: ...

    def resume(self, study_ref: str) -> None: ...


# -- messages to a worker ---------------------------------------------------------------------
# Writing to one worker is a capability: MTurk e-mails them (NotifyWorkers), Prolific shows it
# in their messages; a study link knows no address. The platform says what a message may hold
# (``Capabilities.messaging``, read by `messaging`) and its provider implements `Messages`.


@dataclass(frozen=True)
class Messaging:
    """How a platform carries a message from the researcher to one worker, or why it cannot:
    ``subject``, the longest subject (None: its messages have none); ``text``, the longest
    text; ``says``, where the worker reads it (or why there is no message)."""

    can: bool
    says: str
    subject: int | None = None
    text: int = 0


def messaging(platform: Platform) -> Messaging:
    """How ``platform`` messages a worker (one whose capabilities name none cannot)."""
    found = platform.capabilities.messaging
    return found or Messaging(
        False, f"{platform.label} has no message to a worker harness can send"
    )


@runtime_checkable
class Messages(Protocol):
    """A provider that can send one worker a message (not idempotent: the caller records it
    before and after, `harness.platform.messages`). ``study_ref`` is the platform's id of the
    study the message is about, where the platform asks for one (Prolific), else None;
    `PlatformError` when the platform did not deliver it."""

    def message(
        self, worker_id: str, subject: str | None, text: str, study_ref: str | None
    ) -> None: ...
