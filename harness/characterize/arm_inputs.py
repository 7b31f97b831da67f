"""What comparing a stored study's arms reads (`harness compare-arms`, and `harness
characterize` for its Arms section): the judgments labelled with their arm
(`harness.store.arm_judgments`), every arm's control checks, and every arm's money per
judgment with the platform's fees.

Fees: an arm's money per judgment is what its assignments cost, rewards and the platform's
fees (`Platform.estimate` for a HIT of the study's raters per item), over the arm's content
judgments. Fees are not always a fixed share of the reward (MTurk charges at least $0.01 per
assignment), so a cheap arm's fees can weigh more than a dear arm's.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

import pandas as pd
from sqlmodel import Session

from harness.characterize.arm_figures import ArmsFigures
from harness.characterize.arms import ArmComparison, compare_arms
from harness.characterize.instrument import Instrument
from harness.errors import StatsError
from harness.screening.controls import control_checks
from harness.screening.stored import instrument_context
from harness.stats._table import valued
from harness.store.arm_assignment import study_arms
from harness.store.arm_judgments import ArmJudgments, arm_judgments
from harness.store.models import InstrumentVersion, Study

if TYPE_CHECKING:
    from harness.platform.contract import Platform


@dataclass(frozen=True)
class StoredArms:
    """A stored study with arms, as the comparison needs it."""

    data: ArmJudgments
    checks: pd.DataFrame  # one row per control check: arm, worker_id, item_id, control, passed
    cost_per_judgment: dict[str, float]  # arm -> rewards and fees per content judgment
    platform: str  # the platform whose fees are counted, as it names itself
    currency: str = "USD"  # the study's, of ``cost_per_judgment``


def read_arms(session: Session, study: Study, judgments: pd.DataFrame | None = None) -> StoredArms:
    """The study's arms (`InputError` for a study without arms, from `arm_judgments`);
    ``judgments``: the study's table when the caller read it already."""
    from harness.platform.registry import platform_named
    from harness.store.studies import launched

    assert study.id is not None
    data = arm_judgments(session, study, judgments)
    running = launched(session, study)
    platform = platform_named(running.platform.provider)
    per_unit = running.platform.assignments_per_hit
    checks, cost = [], {}
    for arm in study_arms(session, study.id):
        version = session.get(InstrumentVersion, arm.instrument_id)
        assert version is not None
        rows = data.arm_shown(arm.name)  # the arm's judgments, controls too (read once)
        found = control_checks(rows, instrument_context(session, arm.instrument_id))
        checks.append(found.assign(arm=arm.name))
        rewards_only = data.cost_per_judgment.get(arm.name)
        if rewards_only is not None:
            reward = Decimal(str(version.spec["hit"]["reward"]))
            cost[arm.name] = with_fees(rewards_only, reward, per_unit, platform)
    checked = pd.concat(checks, ignore_index=True)
    return StoredArms(data, checked, cost, platform.label, study.currency)


def with_fees(
    rewards_per_judgment: float, reward: Decimal, per_unit: int, platform: Platform
) -> float:
    """Money per judgment with the platform's fees, from the rewards per judgment: scaled by
    what one assignment costs (``platform.estimate`` of a unit of ``per_unit`` assignments at
    ``reward``) over its reward."""
    if reward <= 0:
        return rewards_per_judgment
    per_assignment = platform.estimate(reward, 1, per_unit).total / per_unit
    return rewards_per_judgment * float(per_assignment / reward)


def compare_stored(
    stored: StoredArms,
    *,
    reference: dict[str, float] | None = None,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
    power: float = 0.8,
    difference: str = "relabel",
    relabelings: int = 1000,
) -> ArmComparison:
    """`compare_arms` on a stored study's arms, at its study type's level of alpha."""
    from harness.spec.study_types import definition

    data = stored.data
    return compare_arms(
        data.judgments,
        level=definition(data.study_type).alpha_level,
        arms=data.arms,
        screened=data.screened,
        reference=reference,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        power=power,
        difference=difference,
        relabelings=relabelings,
        cost_per_judgment=stored.cost_per_judgment,
        controls=stored.checks,
    )


def arms_figures(
    stored: StoredArms,
    characterized: str,
    reference: Instrument | None,
    *,
    resamples: int,
    seed: int,
) -> ArmsFigures:
    """The Arms section's figures: every arm against the base, and which arm reproduces
    ``reference``'s item means best (when it shares at least 4 compared items); a comparison
    that cannot be made (too few items rated in every arm, say) is a ``problem``, not an
    error, so the rest of the report is still written."""
    means: dict[str, float] | None = None
    if reference is not None:
        values = valued(reference.judgments).astype({"value": float})
        found = values.groupby(values["item_id"].astype(str))["value"].mean()
        means = {str(k): float(v) for k, v in found.items()}
        rated = set(stored.data.judgments["item_id"].astype(str))
        if len(rated & set(means)) < 4:
            means = None
    comparison, problem, name = None, None, None
    try:
        comparison = compare_stored(stored, reference=means, resamples=resamples, seed=seed)
        name = None if means is None or reference is None else reference.name
    except StatsError as exc:
        problem = str(exc)
    return ArmsFigures(
        stored.data.study,
        stored.data.arms,
        characterized,
        comparison,
        problem,
        reference=name,
        fees_of=stored.platform,
        currency=stored.currency,
    )
