"""What the task server keeps between requests: the engine, the hook, and built instruments."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session, select

from harness.render.instrument import Instrument, stored_instrument
from harness.render.plan import HitPlan, parse_hit_key
from harness.store.hits import study_hit
from harness.store.models import Hit, InstrumentVersion, Item, Study


@dataclass
class WebState:
    engine: sa.Engine
    after_submission: Callable[[Session, int], None] | None = None
    template_dirs: list[Path] | None = None
    _instruments: dict[int, Instrument] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        self.engine.dispose()

    def instrument(self, session: Session, instrument_id: int) -> Instrument:
        """The stored instrument version as render needs it (built once, then cached)."""
        with self._lock:
            found = self._instruments.get(instrument_id)
        if found is not None:
            return found
        version = session.get(InstrumentVersion, instrument_id)
        assert version is not None
        rows = [
            {"item_id": i.key, "role": i.role, "gold": i.gold, "group": i.group, **i.display}
            for i in session.exec(select(Item).where(Item.instrument_id == instrument_id))
        ]
        built = stored_instrument(version.spec, rows, version.guidelines, self.template_dirs)
        with self._lock:
            self._instruments[instrument_id] = built
        return built


@dataclass(frozen=True)
class TaskHit:
    """A HIT found from its public key: the study, the stored HIT, its plan and instrument."""

    study: Study
    hit: Hit
    plan: HitPlan
    instrument: Instrument


def web_state() -> WebState:
    state = current_app.extensions["harness"]
    assert isinstance(state, WebState)
    return state


def find_task_hit(session: Session, key: str) -> TaskHit | None:
    """The HIT with public key ``key`` (``<study>-<index>``), or None when there is none."""
    try:
        study_name, index = parse_hit_key(key)
    except ValueError:
        return None
    study = session.exec(select(Study).where(Study.name == study_name)).first()
    if study is None or study.id is None:
        return None
    hit = study_hit(session, study.id, index)
    if hit is None:
        return None
    instrument = web_state().instrument(session, study.instrument_id)
    return TaskHit(study, hit, HitPlan.from_showings(hit.index, hit.items), instrument)
