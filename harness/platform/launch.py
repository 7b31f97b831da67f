"""Post a study's HITs: exactly once each, resumable after a crash at any moment.

Each HIT is recorded in the store before posting (the plan), its intent is logged before the
call and its platform id is committed right after, before the next HIT is posted. The platform
call itself carries a token derived from the study and the HIT's index, so repeating it
returns the HIT already made. A run that starts on a study that was launched before first
reconciles with the platform by the HITs' labels (the platform forgets tokens after 24 hours),
so a HIT whose id never reached the store is found instead of posted again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, select

from harness.errors import InputError
from harness.platform.launch_plan import (
    LaunchPlan,
    hit_label,
    hit_token,
    label_prefix,
    new_launch_id,
)
from harness.platform.provider import Prepared, Provider, PublishedUnit, WorkSettings, WorkUnit
from harness.platform.studies import platform_of
from harness.spec import LoadedSpec
from harness.store.database import session_scope
from harness.store.events import record_event
from harness.store.hits import add_planned_hits
from harness.store.instruments import create_study
from harness.store.models import (
    Assignment,
    Event,
    Hit,
    HitStatus,
    InstrumentVersion,
    Study,
    StudyPlatform,
    StudyStatus,
    Worker,
)


@dataclass(frozen=True)
class LaunchResult:
    study_id: int
    posted: int  # HITs posted by this run
    reconciled: int  # HITs found on the platform whose ids the store had lost
    already: int  # HITs posted by earlier runs
    total: int


def work_units(
    plan: LaunchPlan, questions: Sequence[str], launch_id: str, lifetime: int | None = None
) -> list[WorkUnit]:
    """The plan's HITs as units to publish, with their tokens and labels."""
    return [
        WorkUnit(
            index=i,
            question=question,
            assignments=plan.assignments_per_hit,
            lifetime=lifetime or plan.settings.lifetime,
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
    provider: str,
    endpoint_url: str | None,
    public_url: str | None,
) -> tuple[Study, bool]:
    """The study of this launch with its planned HITs: created, or found again on a re-run.

    A study of the same name must run the same instrument on the same target; anything else
    is refused (give the new study another name).
    """
    study = session.exec(select(Study).where(Study.name == plan.study_name)).first()
    created = study is None
    if study is None:
        study = create_study(session, loaded, name=plan.study_name, target=plan.target)
        assert study.id is not None
        if plan.budget is not None:
            study.budget = plan.budget
        session.add(
            StudyPlatform(
                study_id=study.id,
                provider=provider,
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
        version = session.get(InstrumentVersion, study.instrument_id)
        assert version is not None
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
        platform = platform_of(session, study)
        launched = (platform.reward, platform.assignments_per_hit, platform.hosting)
        if launched != (plan.settings.reward, plan.assignments_per_hit, plan.hosting):
            raise InputError(
                f"study {plan.study_name!r} was launched with reward ${platform.reward}, "
                f"{platform.assignments_per_hit} assignments per HIT and {platform.hosting} "
                "hosting; this spec differs: give a changed study another study.name"
            )
    try:
        add_planned_hits(session, study, showings, plan.assignments_per_hit)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    return study, created


def unposted(session: Session, study_id: int) -> list[Hit]:
    return list(
        session.exec(
            select(Hit)
            .where(Hit.study_id == study_id, Hit.platform_hit_id.is_(None))  # type: ignore[union-attr]
            .order_by(Hit.index)  # type: ignore[arg-type]
        )
    )


def post_hits(
    engine: sa.Engine,
    provider: Provider,
    study_id: int,
    plan: LaunchPlan,
    units: Sequence[WorkUnit],
    *,
    reconcile: bool,
    exclude_studies: Sequence[str] = (),
    notification_queue: str | None = None,
    on_posted: Callable[[int], None] | None = None,
) -> LaunchResult:
    """Publish every unit the store has no platform id for; see the module docstring."""
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        assert study is not None
        platform = platform_of(session, study)
        settings_ref = platform.block_ref
        missing = {h.index for h in unposted(session, study_id)}
        study.status = StudyStatus.LAUNCHING
        session.add(study)
    already = len(units) - len(missing)
    prepared = _prepare(engine, provider, study_id, plan.settings, settings_ref, notification_queue)
    _exclude_earlier_workers(engine, provider, study_id, prepared.exclude_ref, exclude_studies)
    reconciled = 0
    if reconcile and missing:
        found = {
            u.label: u
            for u in provider.published(label_prefix(study.name, platform.launch_id))
            if u.label is not None
        }
        for unit in units:
            if unit.index in missing and unit.label in found:
                _record_posted(engine, study_id, unit, found[unit.label], "hit.reconciled")
                missing.discard(unit.index)
                reconciled += 1
                if on_posted:
                    on_posted(1)
    posted = 0
    for unit in units:
        if unit.index not in missing:
            continue
        with session_scope(engine) as session:
            record_event(
                session,
                "hit.create.intent",
                study_id=study_id,
                subject=unit.label,
                payload={"index": unit.index, "token": unit.token, "assignments": unit.assignments},
            )
        published = provider.publish(prepared.work_type_id, unit)
        _record_posted(engine, study_id, unit, published, "hit.created")
        posted += 1
        if on_posted:
            on_posted(1)
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        assert study is not None
        if not unposted(session, study_id):
            study.status = StudyStatus.RUNNING
            session.add(study)
    return LaunchResult(study_id, posted, reconciled, already, len(units))


def _prepare(
    engine: sa.Engine,
    provider: Provider,
    study_id: int,
    settings: WorkSettings,
    exclude_ref: str | None,
    notification_queue: str | None,
) -> Prepared:
    """The work type and exclusion group (created once), recorded in the store."""
    with session_scope(engine) as session:
        study = session.get(Study, study_id)
        assert study is not None
        launch_id = platform_of(session, study).launch_id
        record_event(session, "platform.prepare.intent", study_id=study_id, subject=study.name)
    prepared = provider.prepare(f"{study.name} {launch_id}", settings, exclude_ref)
    with session_scope(engine) as session:
        platform = platform_of(session, study)
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
                "platform.prepared",
                study_id=study_id,
                subject=prepared.work_type_id,
                payload={"exclude_ref": prepared.exclude_ref, "created": prepared.created},
            )
    if notification_queue:
        provider.watch(prepared.work_type_id, notification_queue)
        with session_scope(engine) as session:
            platform = platform_of(session, study)
            if platform.notification_queue != notification_queue:
                platform.notification_queue = notification_queue
                session.add(platform)
                record_event(
                    session,
                    "platform.notifications",
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
        done = set(
            session.exec(
                select(Event.subject).where(
                    Event.study_id == study_id, Event.kind == "worker.excluded"
                )
            )
        )
    for worker in sorted(workers - done):
        provider.exclude(exclude_ref, worker)
        with session_scope(engine) as session:
            record_event(
                session,
                "worker.excluded",
                study_id=study_id,
                subject=worker,
                payload={"reason": "took part in an excluded study", "studies": list(names)},
            )


def _record_posted(
    engine: sa.Engine, study_id: int, unit: WorkUnit, published: PublishedUnit, kind: str
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
