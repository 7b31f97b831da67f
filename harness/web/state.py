"""What the task server keeps between requests: the engine, the hook, and built instruments."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session

from harness.platform.after_submission import AfterSubmission
from harness.render.instrument import Instrument, stored_instrument
from harness.render.plan import HitPlan, parse_hit_key
from harness.store.arm_tables import hit_instrument_id
from harness.store.hits import study_hit
from harness.store.instruments import frozen_instrument
from harness.store.models import Hit, Study
from harness.store.studies import study_named


@dataclass
class WebState:
    engine: sa.Engine
    after_submission: AfterSubmission | None = None
    template_dirs: list[Path] | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)  # run first by close
    _instruments: dict[int, Instrument] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        for close in self.closers:
            close()
        self.engine.dispose()

    def instrument(self, session: Session, instrument_id: int) -> Instrument:
        """The stored instrument version as render needs it (built once, then cached)."""
        with self._lock:
            found = self._instruments.get(instrument_id)
        if found is not None:
            return found
        built = stored_instrument(frozen_instrument(session, instrument_id), self.template_dirs)
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
    study = study_named(session, study_name)
    if study is None or study.id is None:
        return None
    hit = study_hit(session, study.id, index)
    if hit is None:
        return None
    instrument = web_state().instrument(session, hit_instrument_id(session, hit))  # its arm's
    return TaskHit(study, hit, HitPlan.from_showings(hit.index, hit.items), instrument)
