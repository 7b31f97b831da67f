"""A stored study with arms as the comparison reads it: judgments with an ``arm`` column, the
arms in the spec's order, and the workers screening excluded (issue #18)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from sqlmodel import Session, select

from harness.errors import InputError
from harness.spec.load import CONTENT_ROLES
from harness.spec.model import StudyType
from harness.store.arm_assignment import study_arms
from harness.store.decisions import acts, latest_decisions
from harness.store.judgment_table import study_judgments
from harness.store.models import DecisionState, InstrumentVersion, Study, Worker


@dataclass(frozen=True)
class ArmJudgments:
    """What `harness.characterize.arms.compare_arms` needs of a stored study."""

    study: str
    study_type: StudyType
    arms: list[str]  # the spec's order: the first is the base
    judgments: pd.DataFrame  # content: item_id, worker_id, arm, value, skipped, seconds, ...
    screened: set[str]  # workers a screening decision excludes (acted on, not overruled)
    cost_per_judgment: dict[str, float]  # arm -> its reward per assignment / content judgments
    shown: pd.DataFrame  # every judgment, controls too, with ``arm``: the checks read it

    def arm_shown(self, arm: str) -> pd.DataFrame:
        """Every judgment of ``arm``, controls included: what its control checks read."""
        return self.shown[self.shown["arm"] == arm] if len(self.shown) else self.shown


def arm_judgments(
    session: Session, study: Study, judgments: pd.DataFrame | None = None
) -> ArmJudgments:
    """The study's judgments labelled with their arm, read once (or ``judgments``, the study's
    table as `study_judgments` reads it, when the caller has it already): the content
    judgments the comparison reads, and every judgment (controls too) for the controls per
    arm; `InputError` for a study without arms (compare its instrument with `harness
    characterize` instead)."""
    assert study.id is not None
    arms = study_arms(session, study.id)
    if not arms:
        raise InputError(
            f"study {study.name!r} has no arms; a study with arms is launched from a spec with "
            "an `arms:` section (docs/arms.md)"
        )
    hashes, rewards = {}, {}
    for arm in arms:
        version = session.get(InstrumentVersion, arm.instrument_id)
        assert version is not None
        hashes[version.hash] = arm.name
        rewards[arm.name] = float(version.spec["hit"]["reward"])
    shown = study_judgments(session, study.id) if judgments is None else judgments
    shown = shown.assign(arm=shown["instrument_hash"].map(hashes))
    table = shown[shown["role"].isin(CONTENT_ROLES)] if "role" in shown.columns else shown
    workers = {w.id: w.platform_worker_id for w in session.exec(select(Worker)) if w.id is not None}
    screened = {
        workers[d.worker_id]
        for d in latest_decisions(session, study.id)
        if acts(d.flag, d.action) and d.state is not DecisionState.OVERRULED
    }
    cost = {}
    for name, rows in table.groupby("arm"):
        if len(rows):
            cost[str(name)] = rewards[str(name)] * rows["assignment_id"].nunique() / len(rows)
    version = session.get(InstrumentVersion, study.instrument_id)
    assert version is not None
    return ArmJudgments(
        study.name,
        version.study_type,
        [a.name for a in arms],
        table.reset_index(drop=True),
        screened,
        cost,
        shown.reset_index(drop=True),
    )
