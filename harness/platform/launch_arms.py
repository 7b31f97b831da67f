"""Launch a study with arms (issue #18): one study, one item set, one budget, one launch.

Each arm's HITs are planned from the arm's own spec (`harness.spec.arms`), so every item
reaches the spec's raters per item in every arm; the study's HITs are the arms' HITs one after
the other (arm 0's first), each recorded with its arm (`harness.store.arm_tables.ArmHit`), and
each arm's instrument is frozen and named in `StudyArm`. The study itself runs the first arm's
instrument (what a study without arms would show). On a platform with places (a study link,
Prolific) the one published study holds every arm's places; the participant pages assign each
arriving worker an arm (`harness.store.arm_assignment.allocate_in_arm`) and give them only their
arm's HITs.

MTurk is refused for now: keeping a worker in one arm there needs the task server to pick
the arm's page at accept time (external hosting) or one HIT group per arm with mutual
exclusion (MTurk hosting), neither of which is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import sqlalchemy as sa
from sqlmodel import select

from harness.errors import LaunchRefused
from harness.platform.launch import (
    LaunchResult,
    connect_for_the_rest,
    open_study,
    post_hits,
    work_units,
)
from harness.platform.launch_plan import LaunchDraft, LaunchPlan, draft_launch
from harness.platform.provider import PlacesPlatform
from harness.render.plan import HitPlan
from harness.spec.arms import ArmedSpec
from harness.store.arm_assignment import assign_hits, record_arms
from harness.store.database import session_scope
from harness.store.instruments import freeze_instrument
from harness.store.models import Hit


@dataclass(frozen=True)
class ArmsDraft:
    """The whole study's draft (every arm's HITs, one after the other) and where each arm's
    HITs start and end in it."""

    draft: LaunchDraft
    ranges: list[tuple[str, range]]  # arm name -> the HIT indexes of that arm
    hashes: list[str]  # each arm's instrument hash, in the same order

    @property
    def plan(self) -> LaunchPlan:
        return self.draft.plan

    def arms_line(self) -> str:
        """The arms and their HITs, for the person reading the plan."""
        return f"  {len(self.ranges)} arms: " + ", ".join(
            f"{name} ({len(r)} HITs, instrument {h[:12]})"
            for (name, r), h in zip(self.ranges, self.hashes, strict=True)
        )


def draft_arms_launch(
    armed: ArmedSpec, target: str | None, endpoint_url: str | None, public_url: str | None
) -> ArmsDraft:
    """Plan every arm on ``target``; refused on a platform without places, or when arms'
    rewards differ (one published study pays one reward)."""
    drafts = [draft_launch(a.loaded, target, endpoint_url, public_url) for a in armed.arms]
    first = drafts[0]
    platform = first.plan.platform
    if not isinstance(platform, PlacesPlatform):
        raise LaunchRefused(
            f"{armed.path}: a study with arms runs on a platform with places (link, prolific) "
            f"for now, not on {platform.name}: there each worker is kept in one arm by the "
            "allocator; give --target link (or a prolific target)"
        )
    rewards = {d.plan.settings.reward for d in drafts}
    if len(rewards) > 1:
        raise LaunchRefused(
            f"{armed.path}: the arms pay different rewards "
            f"({', '.join(f'${r}' for r in sorted(rewards))}); on {platform.label} one study "
            "pays one reward: give every arm the same hit.reward"
        )
    hit_plans: list[HitPlan] = []
    documents: list[str] = []
    ranges: list[tuple[str, range]] = []
    for arm, d in zip(armed.arms, drafts, strict=True):
        start = len(hit_plans)
        hit_plans += [replace(p, index=start + i) for i, p in enumerate(d.hit_plans)]
        documents += d.documents
        ranges.append((arm.name, range(start, len(hit_plans))))
    total = len(hit_plans)
    per_unit = first.plan.assignments_per_hit
    plan = replace(
        first.plan,
        hits=total,
        cost=platform.estimate(first.plan.settings.reward, total, per_unit),
    )
    hashes = [a.instrument_hash for a in armed.arms]
    draft = replace(first, plan=plan, hit_plans=hit_plans, documents=documents)
    return ArmsDraft(draft, ranges, hashes)


def launch_arms(
    engine: sa.Engine,
    arms_draft: ArmsDraft,
    armed: ArmedSpec,
    *,
    say: Callable[[str], None] = lambda _line: None,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> LaunchResult:
    """Record the study, its arms and every arm's HITs, then open its places (resumable: a
    re-run finds the study, its arms and HITs again and opens nothing twice)."""
    draft = arms_draft.draft
    plan = draft.plan
    provider, existing = connect_for_the_rest(engine, draft, say)
    showings = [p.showings for p in draft.hit_plans]
    base = armed.arms[0].loaded
    with session_scope(engine) as session:
        running, created = open_study(
            session,
            base,
            plan,
            showings,
            endpoint_url=draft.endpoint_url,
            public_url=draft.public_url,
        )
        instruments = []
        for arm in armed.arms:
            version = freeze_instrument(session, arm.loaded)
            assert version.id is not None
            instruments.append((arm.name, version.id))
        refs = record_arms(session, running.id, instruments)
        hits = {
            h.index: h.id
            for h in session.exec(select(Hit).where(Hit.study_id == running.id))
            if h.id is not None
        }
        for ref, (_name, indexes) in zip(refs, arms_draft.ranges, strict=True):
            assign_hits(session, ref.id, [hits[i] for i in indexes])
    units = work_units(plan, draft.documents, running.platform.launch_id)
    return post_hits(
        engine,
        provider,
        running,
        plan,
        units,
        reconcile=not created,
        exclude_studies=base.spec.qualifications.exclude_studies,
        on_posted=progress(plan.hits - existing) if progress else None,
    )
