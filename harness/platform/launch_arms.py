"""Launch a study with arms (issue #18): one study, one item set, one budget, one launch.

Each arm's HITs are planned from the arm's own spec (`harness.spec.arms`), so every item
reaches the spec's raters per item in every arm; the study's HITs are the arms' HITs one after
the other (arm 0's first, each arm's numbered after the earlier arms'), each recorded with its
arm (`harness.store.arm_tables.ArmHit`), and each arm's instrument is frozen and named in
`StudyArm`. The study itself runs the first arm's instrument (what a study without arms would
show).

On a platform with places (a study link, Prolific) the one published study holds every arm's
places; the participant pages assign each arriving worker an arm
(`harness.store.arm_assignment.allocate_in_arm`) and give them only their arm's HITs. One
published study pays one reward, so the arms must pay the same there.

On MTurk (a platform whose provider keeps workers to groups, `GroupsProvider`) each arm is its
own HIT group: its own HIT type (its reward, title, description and keywords, its HITs with
the spec's raters per item as their assignments) and its own group of workers, a qualification
type. Every arm's HITs require that the worker hold none of the other arms' qualifications, and
hide themselves from those who do (DiscoverPreviewAndAccept); a worker is given their arm's
qualification once harness knows their arm (the task server at their first arrival with
external hosting, sync at their first submission with MTurk hosting), so that from then on
MTurk itself keeps them from the other arms (docs/arms.md, "Arms on MTurk"). The study costs
the sum of its arms' costs, each at its own reward.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Session, select

from harness.errors import LaunchRefused
from harness.hosting import Hosting
from harness.money import money
from harness.platform.contract import (
    CostEstimate,
    GroupsProvider,
    PlacesPlatform,
    PlacesProvider,
    Prepared,
    Provider,
    WorkSettings,
)
from harness.platform.launch_plan import LaunchDraft, LaunchPlan, draft_launch
from harness.spec.arms import ArmedSpec
from harness.store.arm_assignment import ArmRef, assign_hits, record_arms, set_platform_refs
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event
from harness.store.instruments import freeze_instrument
from harness.store.models import Hit
from harness.store.studies import LaunchedStudy

LISTED = ("reward", "title", "description", "keywords")
"""What MTurk's list of HIT groups shows a worker of each group before they choose one."""


@dataclass(frozen=True)
class ArmsDraft:
    """The whole study's draft (every arm's HITs, one after the other), each arm's own draft
    (its settings and cost) and where each arm's HITs start and end in the study's."""

    draft: LaunchDraft
    arms: list[LaunchDraft]  # in the spec's order
    ranges: list[tuple[str, range]]  # arm name -> the HIT indexes of that arm
    armed: ArmedSpec

    @property
    def hashes(self) -> list[str]:
        """Each arm's instrument hash, in the spec's order."""
        return [arm.instrument_hash for arm in self.armed.arms]

    @property
    def plan(self) -> LaunchPlan:
        return self.draft.plan

    def arms_line(self) -> str:
        """The arms and their HITs, for the person reading the plan."""
        one_reward = len({d.plan.settings.reward for d in self.arms}) == 1
        c = self.plan.settings.currency
        return f"  {len(self.ranges)} arms: " + ", ".join(
            f"{name} ({len(r)} HITs, instrument {h[:12]}"
            + (
                ""
                if one_reward
                else f", {money(d.plan.settings.reward, c)} each, {money(d.plan.cost.total, c)}"
            )
            + ")"
            for (name, r), h, d in zip(self.ranges, self.hashes, self.arms, strict=True)
        )

    def cost_of(self, indexes: Sequence[int]) -> Decimal:
        """Rewards and fees of the study's HITs at ``indexes``, each at its arm's reward."""
        wanted = set(indexes)
        return sum(
            (
                d.plan.cost_of(len(wanted.intersection(r)))
                for (_n, r), d in zip(self.ranges, self.arms, strict=True)
            ),
            Decimal(0),
        )

    def record(self, session: Session, study_id: int) -> list[ArmRef]:
        """The study's arms, each with its frozen instrument and its HITs (found again on a
        re-run)."""
        instruments = []
        for arm in self.armed.arms:
            version = freeze_instrument(session, arm.loaded)
            assert version.id is not None
            instruments.append((arm.name, version.id))
        refs = record_arms(session, study_id, instruments)
        hits = {
            h.index: h.id
            for h in session.exec(select(Hit).where(Hit.study_id == study_id))
            if h.id is not None
        }
        for ref, (_name, indexes) in zip(refs, self.ranges, strict=True):
            assign_hits(session, ref.id, [hits[i] for i in indexes])
        return refs

    def grouped(
        self,
        engine: sa.Engine,
        provider: Provider,
        running: LaunchedStudy,
        refs: Sequence[ArmRef],
        queue: str | None,
    ) -> tuple[WorkSettings, Callable[[Prepared], Mapping[int, str]]] | None:
        """On a platform that keeps workers to groups (MTurk), each arm's group made: the
        study's settings (the first arm's) and each HIT's HIT type once the study's exclusion
        group exists; None elsewhere (a platform with places holds every arm in one study)."""
        if not isinstance(provider, GroupsProvider) or isinstance(provider, PlacesProvider):
            return None
        groups = _make_groups(engine, provider, running, refs)

        def unit_types(prepared: Prepared) -> Mapping[int, str]:
            return _arm_types(engine, provider, running, self, refs, groups, prepared, queue)

        return _arm_settings(self, groups, 0), unit_types


def draft_arms_launch(
    armed: ArmedSpec, target: str | None, endpoint_url: str | None, public_url: str | None
) -> ArmsDraft:
    """Plan every arm on ``target``; refused on a platform that cannot keep a worker to one
    arm, and on a platform with places when the arms' rewards differ (one published study
    pays one reward)."""
    drafts: list[LaunchDraft] = []
    ranges: list[tuple[str, range]] = []
    for arm in armed.arms:
        start = sum(len(d.hit_plans) for d in drafts)
        drafts.append(draft_launch(arm.loaded, target, endpoint_url, public_url, first_index=start))
        ranges.append((arm.name, range(start, start + len(drafts[-1].hit_plans))))
    first = drafts[0]
    platform = first.plan.platform
    rewards = sorted({d.plan.settings.reward for d in drafts})
    c = first.plan.settings.currency
    per_unit = first.plan.assignments_per_hit
    total = sum(len(d.hit_plans) for d in drafts)
    if isinstance(platform, PlacesPlatform):
        if len(rewards) > 1:
            raise LaunchRefused(
                f"{armed.path}: the arms pay different rewards "
                f"({', '.join(money(r, c) for r in rewards)}); on {platform.label} one study "
                "pays one reward: give every arm the same hit.reward"
            )
        cost = platform.estimate(rewards[0], total, per_unit)
    elif platform.capabilities.arm_groups:
        cost = _sum_costs([d.plan.cost for d in drafts])
    else:
        raise LaunchRefused(
            f"{armed.path}: a study with arms runs on a platform with places (link, prolific) "
            f"or on MTurk, not on {platform.name}: {platform.label} has no way to keep a "
            "worker to one arm; give --target link (or a prolific or MTurk target)"
        )
    warnings = list(dict.fromkeys(w for d in drafts for w in d.plan.warnings))
    warnings += _listing_warning(armed, drafts)
    plan = replace(
        first.plan,
        hits=total,
        cost=cost,
        warnings=warnings,
        reward_text=None
        if len(rewards) == 1
        else (f"{money(rewards[0], c)} to {money(rewards[-1], c)} each (each arm its own)"),
    )
    draft = replace(
        first,
        plan=plan,
        hit_plans=[p for d in drafts for p in d.hit_plans],
        documents=[doc for d in drafts for doc in d.documents],
    )
    return ArmsDraft(draft, drafts, ranges, armed)


def _sum_costs(costs: Sequence[CostEstimate]) -> CostEstimate:
    return CostEstimate(
        sum(c.assignments for c in costs),
        sum((c.rewards for c in costs), Decimal(0)),
        sum((c.fees for c in costs), Decimal(0)),
    )


def _listing_warning(armed: ArmedSpec, drafts: Sequence[LaunchDraft]) -> list[str]:
    """With MTurk hosting a worker's arm is the HIT group they take first: arms that differ in
    what the list of groups shows let workers choose their arm by it."""
    plan = drafts[0].plan
    if plan.hosting != Hosting.MTURK or isinstance(plan.platform, PlacesPlatform):
        return []
    differ = [name for name in LISTED if len({_listed(d.plan.settings, name) for d in drafts}) > 1]
    if not differ:
        return []
    return [
        f"hosting mturk: a worker's arm is the HIT group they take first, and the arms differ "
        f"in what MTurk lists ({', '.join(differ)}), so workers may choose their arm by it; "
        "give every arm the same, or use external hosting, where harness assigns the arms at "
        "random"
    ]


def _listed(settings: WorkSettings, name: str) -> object:
    value = getattr(settings, name)
    return tuple(value) if name == "keywords" else value


def _study_key(running: LaunchedStudy) -> str:
    return f"{running.name} {running.platform.launch_id}"


def _make_groups(
    engine: sa.Engine, provider: GroupsProvider, running: LaunchedStudy, refs: Sequence[ArmRef]
) -> list[str]:
    """Each arm's group of workers, made once and recorded before the next is made."""
    groups = []
    for ref in refs:
        group = ref.group_ref
        if group is None:
            group = provider.make_group(_study_key(running), ref.name)
            _record_ref(engine, running, ref, EventKind.ARM_GROUP, group_ref=group)
        groups.append(group)
    return groups


def _arm_settings(arms_draft: ArmsDraft, groups: Sequence[str], position: int) -> WorkSettings:
    """The arm's own settings (reward, title, ...), closed to the other arms' workers."""
    own = arms_draft.arms[position].plan.settings
    return replace(own, keep_out=[g for i, g in enumerate(groups) if i != position])


def _arm_types(
    engine: sa.Engine,
    provider: Provider,
    running: LaunchedStudy,
    arms_draft: ArmsDraft,
    refs: Sequence[ArmRef],
    groups: Sequence[str],
    prepared: Prepared,
    queue: str | None,
) -> dict[int, str]:
    """Each HIT's HIT type: the first arm's is the study's (``prepared``); every other arm's
    is made now, with the study's exclusion group, and recorded."""
    types: dict[int, str] = {}
    for position, ref in enumerate(refs):
        work_type = prepared.work_type_id
        if position:
            settings = _arm_settings(arms_draft, groups, position)
            work_type = provider.prepare(
                _study_key(running), settings, prepared.exclude_ref
            ).work_type_id
            if queue:
                provider.watch(work_type, queue)
        if ref.work_type_id != work_type:
            _record_ref(engine, running, ref, EventKind.PREPARED, work_type_id=work_type)
        types.update(dict.fromkeys(arms_draft.ranges[position][1], work_type))
    return types


def _record_ref(
    engine: sa.Engine,
    running: LaunchedStudy,
    arm: ArmRef,
    kind: EventKind,
    *,
    group_ref: str | None = None,
    work_type_id: str | None = None,
) -> None:
    """Record the arm's group or HIT type, made now, and log it as ``kind``."""
    with session_scope(engine) as session:
        set_platform_refs(session, arm.id, group_ref=group_ref, work_type_id=work_type_id)
        made = group_ref or work_type_id
        record_event(session, kind, study_id=running.id, subject=made, payload={"arm": arm.name})
