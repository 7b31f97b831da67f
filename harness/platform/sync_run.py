"""A stored study's sync as `harness sync`, `harness expire` and the demo run it: answers read
with the platform's codec and checked against the stored instruments, then every new
submission screened once, and (``apply``) what screening decided carried out."""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlmodel import col, select

from harness.errors import InputError
from harness.platform.contract import PlacesProvider, Provider
from harness.platform.decisions import apply_pending_decisions
from harness.platform.places import published_ref
from harness.platform.reconcile import SyncHooks, SyncReport
from harness.platform.registry import provider_for
from harness.platform.submissions.after_submission import run_after_submission, screen
from harness.platform.sync import sync_from_queue, sync_study
from harness.store.arm_tables import hit_instruments
from harness.store.database import session_scope
from harness.store.instruments import frozen_instrument
from harness.store.models import Assignment, Hit
from harness.store.studies import LaunchedStudy

STORED_QUEUE = "-"
"""As ``queue_url``: the queue the study was launched with (--notify-queue)."""


def study_sync_hooks(engine: sa.Engine, provider: Provider, running: LaunchedStudy) -> SyncHooks:
    """Answers read with the platform's codec and checked against the stored instrument; no
    hook per HIT: `sync_stored_study` screens and acts once, after the whole run."""
    from harness.render.instrument import stored_instrument  # pandas: imported when used

    with session_scope(engine) as session:
        hits = list(session.exec(select(Hit).where(Hit.study_id == running.id)))
        of_hit = hit_instruments(session, hits)  # a study with arms: each HIT its arm's
        built = {
            i: stored_instrument(frozen_instrument(session, i))
            for i in {running.study.instrument_id, *of_hit.values()}
        }
    by_hit = {hit_id: built[i] for hit_id, i in of_hit.items()}
    return SyncHooks.of(provider, built[running.study.instrument_id], by_hit)


@dataclass
class SyncRun:
    """What a sync did: the report and the decisions carried out after it."""

    report: SyncReport
    acted: list[str] = field(default_factory=list)
    composed: list[int] = field(default_factory=list)  # HITs adaptive collection posted
    finished: bool = False  # adaptive collection found every item done and closed the study

    def lines(self, study: str) -> list[str]:
        composed = (
            [f"  adaptive: posted {len(self.composed)} HITs of the items least certain"]
            if self.composed
            else []
        )
        if self.finished:
            composed.append(
                "  adaptive: every item reached its target or its cap: the study is finished "
                "and takes nobody new (work under way is still collected)"
            )
        return [self.report.line(study), *(f"  {action}" for action in self.acted), *composed]

    def warnings(self, study: str) -> list[str]:
        return [
            *(f"warning: arms: {f} (the next sync tries again)" for f in self.report.arm_failures),
            *(
                f"warning: live screening failed ({failure}); the judgments are stored and will "
                f"be screened on the next sync (`harness screen {study}` shows every worker's "
                "scores)"
                for failure in self.report.hook_failures
            ),
        ]


def sync_stored_study(
    engine: sa.Engine, running: LaunchedStudy, *, apply: bool = True, queue_url: str | None = None
) -> SyncRun:
    """Pull ``running``'s submissions from its platform (polling, or from ``queue_url``: an SQS
    queue, `STORED_QUEUE` for the study's own) into the store; then screen every stored
    assignment not screened yet and (``apply``) carry out the decisions still pending."""
    provider = provider_for(running)
    hooks = study_sync_hooks(engine, provider, running)
    if queue_url == STORED_QUEUE:
        queue_url = running.platform.notification_queue
        if not queue_url:
            raise InputError(
                f"study {running.study.name!r} was launched without --notify-queue: give the "
                "queue's URL to --from-queue, or sync without it (polling)"
            )
    if queue_url:
        sqs = provider.platform.queue_client(running.target, queue_url)
        report = sync_from_queue(engine, provider, running, hooks, sqs, queue_url)
    else:
        report = sync_study(engine, provider, running, hooks)
    # every stored assignment is screened (one whose live screening failed included), and
    # decisions still pending (e.g. a rejection that waited for the submission) are done
    failure = run_after_submission(engine, screen, running)
    if failure:
        report.hook_failures.append(failure)
    report.in_store = _submitted_in_store(engine, running)
    run = SyncRun(report)
    if apply:
        with session_scope(engine) as session:
            run.acted = [a.line() for a in apply_pending_decisions(session, provider, running)]
        run.composed = _compose(engine, provider, running)
        from harness.platform.adaptive_finish import finish_if_done  # pandas and scipy

        run.finished = finish_if_done(engine, provider, running)
    return run


def _compose(engine: sa.Engine, provider: Provider, running: LaunchedStudy) -> list[int]:
    """Adaptive collection's next HITs on a platform of HITs (`adaptive_units`); on a platform
    with places (whose arrivals compose HITs), the places they need (`places_wanted`)."""
    from harness.render.instrument import stored_instrument  # pandas: imported when used

    with session_scope(engine) as session:
        frozen = frozen_instrument(session, running.study.instrument_id)
    if frozen.spec.get("adaptive") is None:
        return []
    instrument = stored_instrument(frozen)
    if isinstance(provider, PlacesProvider):
        from harness.platform.adaptive import places_wanted  # scipy: for adaptive studies only

        with session_scope(engine) as session:
            wanted = places_wanted(session, running, instrument.spec)
            ref = published_ref(session, running.id)
        if wanted is not None and ref is not None:
            provider.set_places(ref, wanted)
        return []
    from harness.platform.adaptive_units import compose_hits  # scipy, as above

    return compose_hits(engine, provider, running, instrument)


def _submitted_in_store(engine: sa.Engine, running: LaunchedStudy) -> int:
    """How many of the study's assignments the store holds as submitted (or reviewed since): on
    a study link, whose platform lists nothing of its own, all there is."""
    query = (
        sa.select(sa.func.count())
        .select_from(Assignment)
        .join(Hit, col(Hit.id) == col(Assignment.hit_id))
        .where(col(Hit.study_id) == running.id, col(Assignment.submitted_at).is_not(None))
    )
    with session_scope(engine) as session:
        return int(session.execute(query).scalar_one())
