"""The dashboard's page on adaptive collection: items' precision over time and what reaching
the target still costs (``/study/<name>/precision``).

Kept apart from the study page's live sections: it reads the study's values when asked
(`harness.platform.adaptive`), and says so for a fixed study. The projection assumes each
unfinished item's sd stays what it is now (`harness.stats.sequential.still_needed`), and
prices the HITs still to come at the spec's reward, before the platform's fees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import pandas as pd

from harness.spec.model import TaskSpec
from harness.stats.sequential import Rule, item_precision, precision_history, still_needed
from harness.store.database import session_scope
from harness.store.instruments import frozen_instrument
from harness.web.dashboard.views import bp, dashboard_state, page, study_or_404


@dataclass(frozen=True)
class Projection:
    """Where an adaptive study stands and what reaching its target still costs."""

    items: int
    at_target: int
    worst_half_width: float
    values_needed: int
    hits_needed: int
    rewards_needed: Decimal
    currency: str  # the spec's, of every amount


def projection(values: pd.DataFrame, items: list[str], rule: Rule, spec: TaskSpec) -> Projection:
    """The study's `Projection` from its values (pure)."""
    now = item_precision(values, items, rule.prior, rule.sure)
    needed = still_needed(now, rule)
    done = int((needed == 0).sum())
    values_needed = int(needed.sum())
    hits = math.ceil(values_needed / spec.items_per_hit)
    return Projection(
        len(items),
        done,
        float(now["half_width"].max()) if items else 0.0,
        values_needed,
        hits,
        spec.hit.reward * hits,
        spec.platform.currency,
    )


@bp.get("/study/<name>/precision")
def precision_page(name: str) -> str:
    """Items' precision over time and the projected cost (a fixed study: a line saying so)."""
    from harness.platform.adaptive import content_items, rule_of, study_values

    with session_scope(dashboard_state().engine) as session:
        study = study_or_404(session, name)
        assert study.id is not None
        spec = TaskSpec.model_validate(frozen_instrument(session, study.instrument_id).spec)
        rule = rule_of(spec)
        items = content_items(session, study.instrument_id)
        values = study_values(session, study.id) if rule is not None else None
    if rule is None or values is None:
        return page("precision.html", name=name, rule=None, p=None, history=[], inf=math.inf)
    history = precision_history(values, items, rule).to_dict("records")
    return page(
        "precision.html",
        name=name,
        rule=rule,
        p=projection(values, items, rule, spec),
        history=history,
        inf=math.inf,
    )
