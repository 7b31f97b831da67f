"""Adaptive collection on a platform of HITs (MTurk): at sync, new HITs from the items short.

`harness sync` calls `compose_hits` after storing what the platform reported. It orders the
unfinished items nobody is still asked about (no HIT of theirs has an open assignment) as
`harness.stats.sequential.compose` does, puts them ``items_per_hit`` to a HIT of one rater,
and posts those HITs while the study's budget (the spec's ``budget``) covers them, with what
is committed already. Each HIT is recorded before it is posted and its platform id committed
right after (the order of `harness.platform.launch`), and the platform call carries the HIT's
token, so a crash between the two posts nothing twice: the next sync posts what is recorded
and not posted. A study on a platform with places composes at arrival instead
(`harness.platform.adaptive.places_composer`).
"""

from __future__ import annotations

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.platform.adaptive import (
    add_hit,
    affordable_hits,
    content_items,
    precision_now,
    rule_of,
)
from harness.platform.contract import Provider, WorkUnit
from harness.platform.launch import publish_unit, unposted
from harness.platform.launch_plan import hit_label, hit_token
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan
from harness.stats.sequential import compose
from harness.store.database import session_scope
from harness.store.models import Assignment, AssignmentStatus, Hit, HitStatus
from harness.store.studies import LaunchedStudy

GONE = (AssignmentStatus.RETURNED, AssignmentStatus.ABANDONED)


def _asked(session: Session, study_id: int) -> set[str]:
    """Items of the study's HITs that still wait for a rater (fewer assignments submitted
    than asked for, on a HIT not yet disposed)."""
    submitted = dict(
        session.exec(
            select(Assignment.hit_id, sa.func.count())
            .join(Hit, col(Hit.id) == col(Assignment.hit_id))
            .where(
                Hit.study_id == study_id,
                col(Assignment.submitted_at).is_not(None),
                col(Assignment.status).not_in(GONE),
            )
            .group_by(col(Assignment.hit_id))
        ).all()
    )
    hits = session.exec(
        select(Hit).where(Hit.study_id == study_id, Hit.status != HitStatus.DISPOSED)
    )
    return {key for h in hits if submitted.get(h.id or 0, 0) < h.max_assignments for key in h.items}


def compose_hits(
    engine: sa.Engine, provider: Provider, running: LaunchedStudy, instrument: Instrument
) -> list[int]:
    """Record and post the HITs adaptive collection needs now; their indexes (none for a
    fixed study, or when the budget leaves no room for one more HIT)."""
    spec = instrument.spec
    rule = rule_of(spec)
    if rule is None:
        return []
    with session_scope(engine) as session:
        items = content_items(session, running.study.instrument_id)
        precision = precision_now(session, running.id, items, rule)
        waiting = _asked(session, running.id)
        # an item still asked of someone is left out until its answers are in
        order = compose(precision, rule, len(items), pd.Series(dtype=int), waiting)
        chunks = [
            order[i : i + spec.items_per_hit] for i in range(0, len(order), spec.items_per_hit)
        ]
        left = affordable_hits(session, running, pending=len(unposted(session, running.id)))
        if left is not None:
            chunks = chunks[:left]
        for chunk in chunks:
            add_hit(session, running.id, chunk, None)
    return post_composed(engine, provider, running, instrument)


def post_composed(
    engine: sa.Engine, provider: Provider, running: LaunchedStudy, instrument: Instrument
) -> list[int]:
    """Post every recorded HIT of the study that has no platform id yet (one at a time, its
    id committed before the next); their indexes."""
    with session_scope(engine) as session:
        hits = unposted(session, running.id)
        work_type = running.platform.work_type_id
    if not hits or work_type is None:
        return []
    return [_post(engine, provider, running, instrument, work_type, h) for h in hits]


def _post(
    engine: sa.Engine,
    provider: Provider,
    running: LaunchedStudy,
    instrument: Instrument,
    work_type: str,
    hit: Hit,
) -> int:
    where = running.platform
    plan = HitPlan.from_showings(hit.index, hit.items)
    question = provider.platform.question(
        instrument,
        plan,
        hosting=where.hosting,
        public_url=where.public_url,
        study_name=running.name,
        target=running.target,
        endpoint_url=where.endpoint_url,
    )
    unit = WorkUnit(
        index=hit.index,
        question=question,
        assignments=hit.max_assignments,
        lifetime=instrument.spec.hit.lifetime,
        token=hit_token(running.name, where.launch_id, hit.index),
        label=hit_label(running.name, where.launch_id, hit.index),
    )
    publish_unit(engine, provider, running.id, work_type, unit)
    return hit.index
