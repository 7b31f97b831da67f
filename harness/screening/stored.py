"""Screening's view of a stored study: its context (scale, items, policy) read from the store.

The instrument version keeps the spec it was frozen from (``InstrumentVersion.spec``) and its
items with their roles, gold answers and groups, so a stored study can be screened without the
spec file.
"""

from __future__ import annotations

import pandas as pd
from sqlmodel import Session, col, select

from harness.errors import StoreError
from harness.screening.context import ScreeningContext, min_others_for
from harness.spec.model import TaskSpec
from harness.spec.references import machine_references
from harness.spec.scale import resolve_scale
from harness.store.models import InstrumentVersion, Item, Study


def study_context(session: Session, study: Study) -> ScreeningContext:
    """The screening context of a stored study: frozen spec's scale and policy, stored items."""
    return instrument_context(session, study.instrument_id)


def instrument_context(session: Session, instrument_id: int) -> ScreeningContext:
    """The screening context of a stored instrument version (a study's, or an arm's)."""
    version = session.get(InstrumentVersion, instrument_id)
    if version is None:  # pragma: no cover - a foreign key keeps this from happening
        raise StoreError(f"instrument version {instrument_id} missing")
    spec = TaskSpec.model_validate(version.spec)
    items = session.exec(
        select(Item).where(Item.instrument_id == instrument_id).order_by(col(Item.id))
    ).all()
    table = pd.DataFrame(
        {
            "item_id": [i.key for i in items],
            "role": [i.role for i in items],
            "gold": pd.array([i.gold for i in items], dtype="Float64").astype(float),
            "group": [i.group for i in items],
        }
    )
    return ScreeningContext(
        resolve_scale(spec.type, spec.scale),
        table,
        dict(spec.screening),
        min_others=min_others_for(spec.raters_per_item),
        references=machine_references(spec.screening),
    )
