"""Post a study's HITs: exactly once each, resumable after a crash at any moment.

Each HIT is recorded in the store before posting (the plan), its intent is logged before the
call and its platform id is committed right after, before the next HIT is posted. The platform
call itself carries a token derived from the study and the HIT's index, so repeating it
returns the HIT already made. A run that starts on a study that was launched before first
reconciles with the platform by the HITs' labels (the platform forgets tokens after 24 hours),
so a HIT whose id never reached the store is found instead of posted again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Protocol, runtime_checkable

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.errors import InputError
from harness.money import money
from harness.platform.contract import (
    PlacesPlatform,
    PlacesProvider,
    Prepared,
    Provider,
    PublishedUnit,
    Request,
    WorkSettings,
    WorkUnit,
)
from harness.platform.launch_arms import ArmsDraft, draft_arms_launch
from harness.platform.launch_plan import (
    LaunchDraft,
    LaunchPlan,
    check_balance,
    draft_launch,
    hit_label,
    hit_token,
    label_prefix,
    new_launch_id,
)
from harness.platform.places import entry_url, open_places, subscribe_hooks
from harness.platform.registry import connect
from harness.spec import LoadedSpec
from harness.spec.arms import ArmedSpec
from harness.store.database import session_scope
from harness.store.events import EventKind, event_logged, record_event
from harness.store.hits import add_planned_hits
from harness.store.instruments import create_study
from harness.store.models import (
    Assignment,
    Hit,
    HitStatus,
    Study,
    StudyPlatform,
    StudyStatus,
    Worker,
)
from harness.store.studies import (
    LaunchedStudy,
    instrument_of,
    launched,
    posted_indexes,
    study_named,
    study_platform,
)


@dataclass(frozen=True)
class LaunchResult:
    study_id: int
    posted: int  # HITs posted by this run
    reconciled: int  # HITs found on the platform whose ids the store had lost
    already: int  # HITs posted by earlier runs
    total: int
    hooks: str | None = None  # whether the platform's hooks reach the task server, and why not


@dataclass(frozen=True)
class StudyDraft:
    """A spec's launch, planned: its spec (of a study with arms: the first arm's), the draft
    of every HIT and, of a study with arms, each arm's (`harness.platform.launch_arms`)."""

    loaded: LoadedSpec
    draft: LaunchDraft
    arms: ArmsDraft | None = None

    @property
    def plan(self) -> LaunchPlan:
        return self.draft.plan

    def lines(self) -> list[str]:
        """The plan, for the person about to launch it."""
        arms = [self.arms.arms_line()] if self.arms is not None else []
        return [*self.plan.lines(), *arms]

    def within(self, budget: Decimal | None) -> StudyDraft:
        """The draft whose study keeps to the lower of the spec's budget and ``budget``."""
        limits = [b for b in (self.plan.budget, budget) if b is not None]
        plan = replace(self.plan, budget=min(limits) if limits else None)
        return replace(self, draft=replace(self.draft, plan=plan))

    def in_project(self, project: str | None) -> StudyDraft:
        """The draft whose study goes into ``project`` (a platform with projects, Prolific;
        None: the spec's ``platform.project``)."""
        if project is None:
            return self
        plan = replace(self.plan, settings=replace(self.plan.settings, project=project))
        return replace(self, draft=replace(self.draft, plan=plan))

    def entry_url(self) -> str | None:
        """On a platform with places, where participants start (None elsewhere)."""
        public_url = self.draft.public_url
        if not isinstance(self.plan.platform, PlacesPlatform) or not public_url:
            return None
        return entry_url(public_url, self.plan.study_name)

    def summary(self, result: LaunchResult) -> str:
        """What the launch did, in one line."""
        plan = self.plan
        posted = f"{plan.study_name}: {result.total} {plan.platform.unit_noun}s on {plan.target}"
        if self.arms is not None:
            return (
                f"{posted} in {len(self.arms.ranges)} arms ({result.posted} posted now, "
                f"{result.already} posted before)"
            )
        return (
            f"{posted} ({result.posted} posted now, {result.reconciled} found again, "
            f"{result.already} posted before)"
        )


def draft_study(
    spec: LoadedSpec | ArmedSpec,
    target: str | None,
    endpoint_url: str | None,
    public_url: str | None,
) -> StudyDraft:
    """Plan the launch of ``spec`` (`harness.spec.arms.read_spec`; a study with arms: every
    arm's) on ``target`` (None: the spec's), refused with what stands in the way."""
    if isinstance(spec, ArmedSpec):  # a study with arms (docs/arms.md)
        arms = draft_arms_launch(spec, target, endpoint_url, public_url)
        return StudyDraft(spec.arms[0].loaded, arms.draft, arms)
    return StudyDraft(spec, draft_launch(spec, target, endpoint_url, public_url))


def work_units(plan: LaunchPlan, questions: Sequence[str], launch_id: str) -> list[WorkUnit]:
    """The plan's HITs as units to publish, with their tokens and labels."""
    return [
        WorkUnit(
            index=i,
            question=question,
            assignments=plan.assignments_per_hit,
            lifetime=plan.settings.lifetime,
            token=hit_token(plan.study_name, launch_id, i),
            label=hit_label(plan.study_name, launch_id, i),
        )
        for i, question in enumerate(questions)
    ]


def open_study(
    session: Session,
    loaded: LoadedSpec,
    plan: LaunchPlan,
    showings: Sequence[Sequence[str]],
    *,
    endpoint_url: str | None,
    public_url: str | None,
) -> tuple[LaunchedStudy, bool]:
    """The study of this launch with its planned HITs: created, or found again on a re-run.

    A study of the same name must run the same instrument on the same platform and target;
    anything else is refused (give the new study another name).
    """
    study = study_named(session, plan.study_name)
    created = study is None
    if study is None:
        study = create_study(session, loaded, name=plan.study_name, target=plan.target)
        assert study.id is not None
        if plan.budget is not None:
            study.budget = plan.budget
        session.add(
            StudyPlatform(
                study_id=study.id,
                provider=plan.platform.name,
                endpoint_url=endpoint_url,
                public_url=public_url,
                hosting=plan.hosting,
                spec_path=str(loaded.path),
                reward=plan.settings.reward,
                assignments_per_hit=plan.assignments_per_hit,
                launch_id=new_launch_id(),
            )
        )
    else:
        version = instrument_of(session, study)
        if version.hash != plan.instrument_hash:
            raise InputError(
                f"study {plan.study_name!r} already exists with instrument {version.hash[:12]}; "
                f"this spec is instrument {plan.instrument_hash[:12]}: give the new study "
                "another study.name"
            )
        if study.target != plan.target:
            raise InputError(
                f"study {plan.study_name!r} was launched on {study.target}, not {plan.target}; "
                "give a study on another target another study.name"
            )
        platform = study_platform(session, study)
        if platform.provider != plan.platform.name:
            raise InputError(
                f"study {plan.study_name!r} was launched on {platform.provider}, not "
                f"{plan.platform.name}; give a study on another platform another study.name"
            )
        settings = (platform.reward, study.currency, platform.assignments_per_hit)
        wanted = (plan.settings.reward, plan.settings.currency, plan.assignments_per_hit)
        if settings + (platform.hosting,) != wanted + (plan.hosting,):
            raise InputError(
                f"study {plan.study_name!r} was launched with reward "
                f"{money(platform.reward, study.currency)}, "
                f"{platform.assignments_per_hit} assignments per HIT and {platform.hosting} "
                "hosting; this spec differs: give a changed study another study.name"
            )
    try:
        add_planned_hits(session, study, showings, plan.assignments_per_hit)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    session.flush()
    return launched(session, study), created


def unposted(session: Session, study_id: int) -> list[Hit]:
    """The study's recorded HITs with no platform id yet, in index order."""
    query = select(Hit).where(Hit.study_id == study_id, col(Hit.platform_hit_id).is_(None))
    return list(session.exec(query.order_by(col(Hit.index))))


def post_hits(
    engine: sa.Engine,
    provider: Provider,
    running: LaunchedStudy,
    plan: LaunchPlan,
    units: Sequence[WorkUnit],
    *,
    reconcile: bool,
    exclude_studies: Sequence[str] = (),
    notification_queue: str | None = None,
    on_posted: Callable[[int], None] | None = None,
    unit_types: Callable[[Prepared], Mapping[int, str]] | None = None,
) -> LaunchResult:
    """Publish every unit the store has no platform id for; see the module docstring.

    ``unit_types`` gives units a work type of their own (a study with arms on MTurk: each
    arm's HIT type), made once the study's exclusion group exists: unit index -> work type;
    the others are published under the study's."""
    study_id = running.id
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        assert study is not None
        missing = {h.index for h in unposted(session, study_id)}
        if study.status is not StudyStatus.PAUSED:  # a paused study stays paused
            study.status = StudyStatus.LAUNCHING
            session.add(study)
    already = len(units) - len(missing)
    prepared = _prepare(engine, provider, running, plan.settings, notification_queue)
    _exclude_earlier_workers(engine, provider, study_id, prepared.exclude_ref, exclude_studies)
    types = unit_types(prepared) if unit_types is not None else {}
    reconciled = 0
    if isinstance(provider, PlacesProvider):  # one study with places, not a unit per HIT
        posted = open_places(engine, provider, running, plan.settings, prepared, on_posted)
        hooks = subscribe_hooks(engine, provider, running)  # else sync polls
        _finish(engine, study_id)
        return LaunchResult(study_id, posted, 0, already, len(units), hooks)
    if reconcile and missing:
        found = {
            u.label: u
            for u in provider.published(label_prefix(running.name, running.platform.launch_id))
            if u.label is not None
        }
        for unit in units:
            if unit.index in missing and unit.label in found:
                _record_posted(engine, study_id, unit, found[unit.label], EventKind.HIT_RECONCILED)
                missing.discard(unit.index)
                reconciled += 1
                if on_posted:
                    on_posted(1)
    posted = 0
    for unit in units:
        if unit.index not in missing:
            continue
        publish_unit(engine, provider, study_id, types.get(unit.index, prepared.work_type_id), unit)
        posted += 1
        if on_posted:
            on_posted(1)
    _finish(engine, study_id)
    return LaunchResult(study_id, posted, reconciled, already, len(units))


def _finish(engine: sa.Engine, study_id: int) -> None:
    """The study runs once every HIT is posted."""
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        assert study is not None
        if not unposted(session, study_id) and study.status is not StudyStatus.PAUSED:
            study.status = StudyStatus.RUNNING
            session.add(study)


def _prepare(
    engine: sa.Engine,
    provider: Provider,
    running: LaunchedStudy,
    settings: WorkSettings,
    notification_queue: str | None,
) -> Prepared:
    """The work type and exclusion group (created once), recorded in the store."""
    study_id = running.id
    with session_scope(engine) as session:
        platform = session.get(StudyPlatform, study_id)
        assert platform is not None
        exclude_ref = platform.block_ref
        record_event(session, EventKind.PREPARE_INTENT, study_id=study_id, subject=running.name)
    prepared = provider.prepare(f"{running.name} {platform.launch_id}", settings, exclude_ref)
    with session_scope(engine) as session:
        platform = session.get(StudyPlatform, study_id)
        assert platform is not None
        changed = (platform.work_type_id, platform.block_ref) != (
            prepared.work_type_id,
            prepared.exclude_ref,
        )
        platform.work_type_id = prepared.work_type_id
        platform.block_ref = prepared.exclude_ref
        session.add(platform)
        if changed or prepared.created:
            record_event(
                session,
                EventKind.PREPARED,
                study_id=study_id,
                subject=prepared.work_type_id,
                payload={"exclude_ref": prepared.exclude_ref, "created": prepared.created},
            )
    if notification_queue:
        provider.watch(prepared.work_type_id, notification_queue)
        with session_scope(engine) as session:
            platform = session.get(StudyPlatform, study_id)
            assert platform is not None
            if platform.notification_queue != notification_queue:
                platform.notification_queue = notification_queue
                session.add(platform)
                record_event(
                    session,
                    EventKind.NOTIFICATIONS,
                    study_id=study_id,
                    subject=notification_queue,
                )
    return prepared


def _exclude_earlier_workers(
    engine: sa.Engine, provider: Provider, study_id: int, exclude_ref: str, names: Sequence[str]
) -> None:
    """Put the workers of the studies this one excludes into its exclusion group (once each)."""
    if not names:
        return
    with session_scope(engine) as session:
        workers = set(
            session.exec(
                select(Worker.platform_worker_id)
                .join(Assignment, Assignment.worker_id == Worker.id)  # type: ignore[arg-type]
                .join(Hit, Hit.id == Assignment.hit_id)  # type: ignore[arg-type]
                .join(Study, Study.id == Hit.study_id)  # type: ignore[arg-type]
                .where(Study.name.in_(names))  # type: ignore[attr-defined]
            )
        )
    for worker in sorted(workers):
        with session_scope(engine) as session:
            if event_logged(session, EventKind.WORKER_EXCLUDED, worker, study_id):
                continue
        provider.exclude(exclude_ref, worker)
        with session_scope(engine) as session:
            record_event(
                session,
                EventKind.WORKER_EXCLUDED,
                study_id=study_id,
                subject=worker,
                payload={"reason": "took part in an excluded study", "studies": list(names)},
            )


def publish_unit(
    engine: sa.Engine, provider: Provider, study_id: int, work_type: str, unit: WorkUnit
) -> None:
    """Publish one recorded HIT: its intent committed before the call, its platform id right
    after (see the module docstring)."""
    with session_scope(engine) as session:
        record_event(
            session,
            EventKind.HIT_CREATE_INTENT,
            study_id=study_id,
            subject=unit.label,
            payload={"index": unit.index, "token": unit.token, "assignments": unit.assignments},
        )
    published = provider.publish(work_type, unit)
    _record_posted(engine, study_id, unit, published, EventKind.HIT_CREATED)


def _record_posted(
    engine: sa.Engine, study_id: int, unit: WorkUnit, published: PublishedUnit, kind: EventKind
) -> None:
    with session_scope(engine) as session:
        hit = session.exec(
            select(Hit).where(Hit.study_id == study_id, Hit.index == unit.index)
        ).one()
        hit.platform_hit_id = published.platform_id
        hit.status = HitStatus(published.state.value)
        session.add(hit)
        record_event(
            session,
            kind,
            study_id=study_id,
            subject=published.platform_id,
            payload={"index": unit.index, "label": unit.label, "token": unit.token},
        )


def connect_for_the_rest(
    engine: sa.Engine,
    draft: LaunchDraft,
    say: Callable[[str], None],
    cost_of: Callable[[Sequence[int]], Decimal] | None = None,
) -> tuple[Provider, int]:
    """The draft's platform, connected, once its balance covers the HITs not posted yet (a
    re-run pays only for what is missing), and how many were posted before; ``say`` gets the
    balance line. ``cost_of`` prices the HITs of the given indexes when they do not all cost
    the same (arms with different rewards)."""
    plan = draft.plan
    provider = connect(plan.platform.name, plan.target, draft.endpoint_url)
    with session_scope(engine) as session:
        posted = posted_indexes(session, study_named(session, plan.study_name))
    existing = len(posted)
    missing = [i for i in range(plan.hits) if i not in posted]
    remaining = cost_of(missing) if cost_of is not None else plan.cost_of(len(missing))
    if remaining > 0:
        balance = provider.balance()
        c = plan.settings.currency
        play = " (a local service's play money)" if plan.platform.is_local(plan.target) else ""
        say(
            f"  balance on {plan.target}: {money(balance, c)}{play}; still to post: "
            f"{money(remaining, c)}"
        )
        if isinstance(provider, Quotes) and cost_of is None:
            places = len(missing) * plan.assignments_per_hit
            quoted = provider.quote(plan.settings, places)
            say(
                f"  {plan.platform.label}'s own price of the {places} places: "
                f"{money(quoted, c)} (harness's: {money(remaining, c)})"
            )
        check_balance(balance, remaining, plan.target, c)
    return provider, existing


@runtime_checkable
class Quotes(Protocol):
    """A provider that prices places itself (Prolific's cost calculator), shown at launch
    beside harness's own figure so that a difference is seen before money is spent."""

    def quote(self, settings: WorkSettings, places: int) -> Decimal: ...


def launch(
    engine: sa.Engine,
    study: StudyDraft,
    *,
    notification_queue: str | None = None,
    say: Callable[[str], None] = lambda _line: None,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> LaunchResult:
    """Check the balance, record the study and its planned HITs, and post what is missing.

    A study with arms also records each arm, its instrument and its HITs, and on MTurk posts
    each arm's HITs in its own group (`harness.platform.launch_arms`). ``say`` gets the lines
    a person should see (the balance); ``progress(total)`` returns the callback told of each
    HIT posted.
    """
    draft, loaded, arms = study.draft, study.loaded, study.arms
    plan = draft.plan
    cost_of = arms.cost_of if arms is not None else None
    provider, existing = connect_for_the_rest(engine, draft, say, cost_of)
    showings = [p.showings for p in draft.hit_plans]
    with session_scope(engine) as session:
        running, created = open_study(
            session,
            loaded,
            plan,
            showings,
            endpoint_url=draft.endpoint_url,
            public_url=draft.public_url,
        )
        refs = arms.record(session, running.id) if arms is not None else []
    units = work_units(plan, draft.documents, running.platform.launch_id)
    grouped = arms.grouped(engine, provider, running, refs, notification_queue) if arms else None
    if grouped is not None:
        plan = replace(plan, settings=grouped[0])
    return post_hits(
        engine,
        provider,
        running,
        plan,
        units,
        reconcile=not created,
        exclude_studies=loaded.spec.qualifications.exclude_studies,
        notification_queue=notification_queue,
        on_posted=progress(plan.hits - existing) if progress else None,
        unit_types=grouped[1] if grouped is not None else None,
    )


def known_launch_id(engine: sa.Engine, study_name: str) -> str | None:
    """The launch id of a study already in the store (a dry run of a resume), else None."""
    try:
        with session_scope(engine) as session:
            study = study_named(session, study_name)
            return None if study is None else study_platform(session, study).launch_id
    except sa.exc.SQLAlchemyError:
        return None  # no store there (or not migrated): a new study


def dry_run(
    engine: sa.Engine | None, plan: LaunchPlan, documents: Sequence[str], queue: str | None
) -> list[Request]:
    """The exact requests a launch would send; the launch id of a study already in the store
    (``engine``: None when there is no store), else <launch id>."""
    launch_id = (known_launch_id(engine, plan.study_name) if engine else None) or "<launch id>"
    units = work_units(plan, documents, launch_id)
    return plan.platform.dry_run(plan.settings, units, queue, f"{plan.study_name} {launch_id}")
