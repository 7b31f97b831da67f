"""What never changes about a posted HIT, read once per process: its arm, the instrument its
pages show and its judgments are stored under, and that instrument's items by key. Also the
frozen values a task server keeps of a study, where it runs and a HIT (`KeptStudy`,
`KeptWhere`, `KeptHit`): plain values read from their rows, never the rows themselves.

A HIT's arm is recorded in the launch's transaction that plans it, before it is posted, and an
instrument version's items are frozen with it (`harness.store.instruments`), so once a HIT has
its platform id none of this can change. Every request of the task server needs it; reading it
once per process (per engine: one database) saves a few statements each. A HIT not posted yet
is read from the database every time, and a HIT this process has not seen (one added since, by
a later launch) is a cache miss that reads the database: the cache can be missing something,
never wrong.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.roles import ItemRole
from harness.store.arm_tables import hit_arm
from harness.store.models import Hit, Item, Study, StudyPlatform


@dataclass(frozen=True)
class ItemRef:
    """An item of a frozen instrument as a judgment refers to it: its row id and role."""

    id: int
    role: ItemRole


@dataclass(frozen=True)
class PostedHit:
    """A HIT's arm (None: a study without arms) and its instrument."""

    arm_id: int | None
    instrument_id: int


@dataclass(frozen=True)
class KeptStudy:
    """What never changes of a study's row (its status does: read it afresh)."""

    id: int
    name: str
    target: str
    instrument_id: int

    @classmethod
    def of(cls, row: Study) -> KeptStudy:
        assert row.id is not None
        return cls(row.id, row.name, row.target, row.instrument_id)


@dataclass(frozen=True)
class KeptWhere:
    """Where a launched study runs: its platform row's provider, launch id and endpoint,
    written at launch and never changed."""

    provider: str
    launch_id: str
    endpoint_url: str | None

    @classmethod
    def of(cls, row: StudyPlatform) -> KeptWhere:
        return cls(row.provider, row.launch_id, row.endpoint_url)


@dataclass(frozen=True)
class KeptHit:
    """What a task server needs of a HIT's row; never changed once it is posted."""

    id: int
    index: int
    platform_hit_id: str | None
    created_at: datetime

    @classmethod
    def of(cls, row: Hit) -> KeptHit:
        assert row.id is not None
        return cls(row.id, row.index, row.platform_hit_id, row.created_at)


class _Known:
    """One database's cache: posted HITs by row id, frozen instruments' items by instrument."""

    def __init__(self) -> None:
        self.hits: dict[int, PostedHit] = {}
        self.items: dict[int, Mapping[str, ItemRef]] = {}
        self.lock = threading.Lock()


_BY_ENGINE: weakref.WeakKeyDictionary[sa.Engine, _Known] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _known(session: Session) -> _Known:
    bind = session.get_bind()
    engine = bind if isinstance(bind, sa.Engine) else bind.engine
    with _LOCK:
        found = _BY_ENGINE.get(engine)
        if found is None:
            found = _BY_ENGINE[engine] = _Known()
        return found


def hit_facts(session: Session, hit: Hit) -> PostedHit:
    """``hit``'s arm and instrument: from this process's cache once it is posted."""
    assert hit.id is not None
    known = _known(session)
    with known.lock:
        found = known.hits.get(hit.id)
    if found is not None:
        return found
    arm_id, instrument_id = hit_arm(session, hit)
    facts = PostedHit(arm_id, instrument_id)
    if hit.platform_hit_id is not None:
        with known.lock:
            known.hits[hit.id] = facts
    return facts


def hit_items(
    session: Session, hit: Hit, instrument_id: int, keys: Collection[str]
) -> Mapping[str, ItemRef]:
    """Those of ``keys`` that are items of ``hit``'s instrument (``instrument_id``, see
    `hit_facts`), by key (maybe more). All the instrument's items are read and kept once the
    HIT is posted: then its instrument is committed (ids read in a transaction that is then
    rolled back can be given again to other rows, on SQLite)."""
    known = _known(session)
    with known.lock:
        found = known.items.get(instrument_id)
    if found is not None:
        return found
    posted = hit.platform_hit_id is not None
    query = select(Item.key, Item.id, Item.role).where(Item.instrument_id == instrument_id)
    if not posted:
        query = query.where(col(Item.key).in_(list(keys)))
    rows = session.exec(query).all()
    items = {
        key: ItemRef(row_id, ItemRole(role)) for key, row_id, role in rows if row_id is not None
    }
    if posted:
        with known.lock:
            known.items[instrument_id] = items
    return items
