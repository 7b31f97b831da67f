"""What the task server keeps between requests: the engine, the hook, built instruments, and
what never changes once a study is launched and its HITs posted (so a request reads only what
can change).

Kept per process, as frozen plain values read from the rows (`harness.store.posted`), never the
rows themselves (a row shared by requests and threads outlives the session that read it, and
one request's failed transaction would break it for every later one): a study's id, name,
target and instrument by name (its status changes and is not kept), where a launched study
runs (its platform row's provider, launch id and endpoint), the origins of the platform site
its workers come from once it is launched, and each posted HIT found by its public key with
its arm and instrument. A HIT not posted yet, a study not launched yet and anything not seen
before are read from the database: a HIT added by a later launch is a miss that finds it
there, never a wrong answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session

from harness.platform.submissions.after_submission import AfterSubmission
from harness.render.instrument import Instrument, stored_instrument
from harness.render.plan import HitPlan, parse_hit_key
from harness.store.hits import study_hit
from harness.store.instruments import frozen_instrument
from harness.store.models import StudyPlatform
from harness.store.posted import KeptHit, KeptStudy, KeptWhere, hit_facts
from harness.store.studies import study_named
from harness.web.security import platform_origins

K = TypeVar("K")
V = TypeVar("V")


@dataclass
class WebState:
    engine: sa.Engine
    after_submission: AfterSubmission | None = None
    template_dirs: list[Path] | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)  # run first by close
    _instruments: dict[int, Instrument] = field(default_factory=dict)
    _studies: dict[str, KeptStudy] = field(default_factory=dict)
    _origins: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _wheres: dict[int, KeptWhere] = field(default_factory=dict)
    _hits: dict[str, TaskHit] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        for close in self.closers:
            close()
        self.engine.dispose()

    def instrument(self, session: Session, instrument_id: int) -> Instrument:
        """The stored instrument version as render needs it (built once, then cached)."""
        built = self._once(
            self._instruments,
            instrument_id,
            lambda: stored_instrument(
                frozen_instrument(session, instrument_id), self.template_dirs
            ),
        )
        assert built is not None
        return built

    def study(self, session: Session, name: str) -> KeptStudy | None:
        """The study called ``name``, or None."""

        def read() -> KeptStudy | None:
            found = study_named(session, name)
            return None if found is None else KeptStudy.of(found)

        return self._once(self._studies, name, read)

    def worker_origins(self, session: Session, study: KeptStudy) -> tuple[str, ...]:
        """The origins of the platform site ``study``'s workers come from, kept once the study
        is launched (its platform, target and endpoint never change after)."""

        def read() -> tuple[str, ...] | None:
            where = self.where(session, study)
            return None if where is None else platform_origins(where, study.target)

        return self._once(self._origins, study.id, read) or ()  # not launched (yet): ()

    def where(self, session: Session, study: KeptStudy) -> KeptWhere | None:
        """Where the launched ``study`` runs, or None before its launch (nothing kept)."""

        def read() -> KeptWhere | None:
            found = session.get(StudyPlatform, study.id)
            return None if found is None else KeptWhere.of(found)

        return self._once(self._wheres, study.id, read)

    def _once(self, kept: dict[K, V], key: K, read: Callable[[], V | None]) -> V | None:
        """``kept[key]``, read on a miss and kept unless None (nothing there yet: read again
        next time)."""
        with self._lock:
            found = kept.get(key)
        if found is None:
            found = read()
            if found is not None:
                with self._lock:
                    kept[key] = found
        return found

    def task_hit(self, session: Session, key: str) -> TaskHit | None:
        """The HIT with public key ``key`` (``<study>-<index>``), or None when there is none;
        a posted one is kept (see the module's notes)."""
        with self._lock:
            found = self._hits.get(key)
        if found is not None:
            return found
        try:
            study_name, index = parse_hit_key(key)
        except ValueError:
            return None
        study = self.study(session, study_name)
        if study is None:
            return None
        hit = study_hit(session, study.id, index)
        if hit is None:
            return None
        facts = hit_facts(session, hit)  # its arm's instrument, in a study with arms
        plan = HitPlan.from_showings(hit.index, hit.items)
        instrument = self.instrument(session, facts.instrument_id)
        found = TaskHit(study, KeptHit.of(hit), plan, instrument, facts.arm_id)
        if hit.platform_hit_id is not None:
            with self._lock:
                self._hits[key] = found
        return found


@dataclass(frozen=True)
class TaskHit:
    """A HIT found from its public key: the study, the HIT, its plan and instrument, and its
    arm (None: a study without arms). What can change (a study's status, a HIT's) is not
    here: whoever needs it reads it."""

    study: KeptStudy
    hit: KeptHit
    plan: HitPlan
    instrument: Instrument
    arm_id: int | None = None


def web_state() -> WebState:
    state = current_app.extensions["harness"]
    assert isinstance(state, WebState)
    return state
