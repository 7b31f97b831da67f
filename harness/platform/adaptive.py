"""Adaptive collection on a launched study: new work built from the items still least certain.

A spec with an ``adaptive:`` section is launched as a fixed study of ``floor`` raters per item
(its ``raters_per_item``). From then on the store's judgments decide what comes next, by the
rule of `harness.stats.sequential`: an item stops when its mean's interval reaches the target
half-width (or it has ``cap`` values), and each new HIT holds the ``items_per_hit`` unfinished
items farthest from the target. On a platform with places (Prolific, a study link) the
allocator asks `places_composer` for a HIT when an arrival finds no free slot; on a platform
of HITs (MTurk) `harness sync` composes HITs from the items still short (`compose_hits`). A
composed HIT is an ordinary HIT of one rater: pages, storage, screening, characterization and
export read the same long table as for any study. The study is finished when no item is
unfinished (`finished`).

The values counted are the content items' answers (controls, repeats and skips are not
values); raters asked whose answers are not in yet are "waiting": an item is not asked of more
raters than its cap leaves room for, and items nobody waits for are asked first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.platform.money import committed, hit_total
from harness.platform.places import places_of, published_ref, slot_ref
from harness.platform.registry import platform_named
from harness.spec.load import CONTENT_ROLES
from harness.spec.model import TaskSpec
from harness.stats.sequential import Rule, compose, item_precision, still_needed, unfinished
from harness.store.allocation import Compose
from harness.store.events import EventKind, record_event
from harness.store.judgment_table import screening_rows
from harness.store.models import Assignment, Hit, Item, Slot, SlotState, Study
from harness.store.studies import LaunchedStudy, launched


def rule_of(spec: TaskSpec) -> Rule | None:
    """The spec's adaptive rule; None for a fixed study."""
    adaptive = spec.adaptive
    return None if adaptive is None else Rule(adaptive.half_width, adaptive.floor, adaptive.cap)


def content_items(session: Session, instrument_id: int) -> list[str]:
    """The instrument's content item keys (the items whose precision is collected for)."""
    return list(
        session.exec(
            select(Item.key)
            .where(Item.instrument_id == instrument_id, col(Item.role).in_(CONTENT_ROLES))
            .order_by(col(Item.id))
        )
    )


def study_values(session: Session, study_id: int) -> pd.DataFrame:
    """The study's values on content items, in the order they were stored: ``item_id,
    worker_id, value`` (skips, controls and second showings left out)."""
    rows = screening_rows(session, study_id)
    if rows.empty:
        return pd.DataFrame({"item_id": [], "worker_id": [], "value": []})
    kept = rows[rows["role"].isin(CONTENT_ROLES) & ~rows["skipped"].astype(bool)]
    return kept.sort_values("judgment_pk")[["item_id", "worker_id", "value"]]


def precision_now(session: Session, study_id: int, items: list[str], rule: Rule) -> pd.DataFrame:
    """`item_precision` of the study's stored values."""
    return item_precision(study_values(session, study_id), items, rule.prior, rule.sure)


def finished(precision: pd.DataFrame, rule: Rule) -> bool:
    """Whether every item has reached the target or its cap: the study needs nobody more."""
    return len(unfinished(precision, rule)) == 0


def _per_item(item_lists: Iterable[list[str]]) -> pd.Series:
    counts = Counter(key for items in item_lists for key in set(items))
    return pd.Series(counts, dtype=int)


def waiting_on_places(session: Session, study_id: int) -> pd.Series:
    """Per item, the raters holding or having submitted a slot whose answers are not stored
    yet (a live reservation, or a submission still in quarantine)."""
    now = utcnow()
    live = sa.or_(
        sa.and_(col(Slot.state) == SlotState.RESERVED, col(Slot.expires_at) > now),
        sa.and_(
            col(Slot.state) == SlotState.SUBMITTED,
            sa.or_(col(Slot.assignment_id).is_(None), col(Assignment.submitted_at).is_(None)),
        ),
    )
    rows = session.exec(
        select(Hit.items)
        .join(Slot, col(Slot.hit_id) == col(Hit.id))
        .outerjoin(Assignment, col(Assignment.id) == col(Slot.assignment_id))
        .where(Slot.study_id == study_id, live)
    )
    return _per_item(list(items) for items in rows)


def add_hit(session: Session, study_id: int, items: list[str], ref: str | None) -> Hit:
    """A new HIT of one rater with these items, next in the study's index; ``ref`` is the
    platform's study it belongs to (places), None when it is still to be posted (MTurk)."""
    last = session.exec(
        select(Hit).where(Hit.study_id == study_id).order_by(col(Hit.index).desc())
    ).first()
    index = 0 if last is None else last.index + 1
    hit = Hit(
        study_id=study_id,
        index=index,
        max_assignments=1,
        items=items,
        platform_hit_id=None if ref is None else slot_ref(ref, index),
    )
    if ref is not None and last is not None:
        hit.status = last.status
    session.add(hit)
    session.flush()
    record_event(
        session,
        EventKind.HIT_COMPOSED,
        study_id=study_id,
        subject=str(index),
        payload={"items": items},
    )
    return hit


def places_composer(study_id: int, instrument_id: int, spec: TaskSpec) -> Compose | None:
    """What the allocator calls when an arrival finds no free slot: add a HIT of the
    ``items_per_hit`` unfinished items least certain that this participant has not seen
    (`compose`). None for a fixed study."""
    rule, per_hit = rule_of(spec), spec.items_per_hit
    if rule is None:
        return None

    def composed(session: Session, seen: set[str]) -> bool:
        ref = published_ref(session, study_id)
        if ref is None:
            return False  # not opened yet: nothing to add to
        if not _room_for_one(session, study_id):
            return False
        items = content_items(session, instrument_id)
        precision = precision_now(session, study_id, items, rule)
        chosen = compose(precision, rule, per_hit, waiting_on_places(session, study_id), seen)
        if not chosen:
            return False
        add_hit(session, study_id, chosen, ref)
        return True

    return composed


def _room_for_one(session: Session, study_id: int) -> bool:
    """Whether the study's budget (if it has one) covers one more place."""
    study = session.get(Study, study_id)
    if study is None or study.budget is None:
        return True
    left = affordable_hits(session, launched(session, study))
    return left is None or left > 0


def affordable_hits(session: Session, running: LaunchedStudy, pending: int = 0) -> int | None:
    """How many more HITs of one rater the study's budget covers, beside what is committed
    and ``pending`` HITs recorded but not committed yet; None when nothing limits them (no
    budget, or HITs that cost nothing while the budget is not overspent)."""
    study = session.get(Study, running.id)
    if study is None or study.budget is None:
        return None
    platform = platform_named(running.platform.provider)
    reward = running.platform.reward
    each = hit_total(platform, reward, 1)
    room = study.budget - committed(session, platform, running.id, reward) - each * pending
    if each == 0:
        return None if room >= 0 else 0
    return max(int(room // each), 0)


def places_wanted(session: Session, running: LaunchedStudy, spec: TaskSpec) -> int | None:
    """How many places the platform's study should have now: every HIT's raters, and one for
    each HIT the projection says is still needed (`still_needed`, ``items_per_hit`` values a
    HIT) that the budget covers with what is committed. Prolific lets in only as many
    participants as the study has places, so a study adding HITs at arrival needs these
    ahead; None for a fixed study, or when no more are needed."""
    rule = rule_of(spec)
    if rule is None:
        return None
    items = content_items(session, running.study.instrument_id)
    needed = int(still_needed(precision_now(session, running.id, items, rule), rule).sum())
    hits = -(-needed // spec.items_per_hit)
    left = affordable_hits(session, running) if hits else None
    if left is not None:
        hits = min(hits, left)
    return places_of(session, running.id) + hits if hits else None
