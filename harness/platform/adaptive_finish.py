"""An adaptive study closes itself: once every item has reached its target or its cap, nobody
new is let in.

`finish_if_done` is called where adaptive progress is read after new work: after a sync
(`harness.platform.sync_run`) and after each submission's screening and acting
(`harness.platform.submissions.after_submission.screen_and_act`). It decides once: under the
study's lock and then its places lock, a running (or paused) study whose items are all done
becomes ``finished``, with a ``study.finish.intent`` event, in one transaction. Then the
platform is told, with calls that are idempotent (`harness.platform.expire.expire_units`):
MTurk's outstanding HITs expire, Prolific's study is stopped, and a study link's entry page
turns newcomers away (the status is what it reads). ``study.finished`` is logged after them.
A process that dies between the two leaves the intent without its result, and the next call
finishes the work. Work under way is not touched: those working submit as usual, and sync
collects it.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session

from harness.platform.adaptive import content_items, finished, precision_now
from harness.platform.contract import Provider
from harness.platform.expire import expire_units
from harness.spec.model import AdaptiveSpec
from harness.stats.sequential import Rule
from harness.store.database import session_scope
from harness.store.events import EventKind, event_logged, record_event
from harness.store.locks import lock_places, lock_study
from harness.store.models import InstrumentVersion, Study, StudyStatus
from harness.store.studies import LaunchedStudy, study_status

OPEN = (StudyStatus.RUNNING, StudyStatus.PAUSED)


def finish_if_done(engine: sa.Engine, provider: Provider, running: LaunchedStudy) -> bool:
    """Close an adaptive study whose items are all done: True when this call told the
    platform (the first to find it done, or the one finishing a closing cut short)."""
    if not _closing(engine, running):
        return False
    expire_units(engine, provider, running)
    with session_scope(engine) as session:
        record_event(session, EventKind.STUDY_FINISHED, study_id=running.id, subject=running.name)
    return True


def stored_rule(session: Session, instrument_id: int) -> Rule | None:
    """The adaptive rule of a stored instrument; None for a fixed one."""
    version = session.get(InstrumentVersion, instrument_id)
    section = None if version is None else version.spec.get("adaptive")
    if section is None:
        return None
    adaptive = AdaptiveSpec.model_validate(section)
    return Rule(adaptive.half_width, adaptive.floor, adaptive.cap)


def _closing(engine: sa.Engine, running: LaunchedStudy) -> bool:
    """Whether the platform is to be told now: the study was just found done (and marked
    finished), or was marked finished by a closing with no result logged yet."""
    with session_scope(engine) as session:
        rule = stored_rule(session, running.study.instrument_id)
        if rule is None or running.study.status not in (*OPEN, StudyStatus.FINISHED):
            return False  # a fixed study; or one expired, or never launched, as read at the edge
        lock_study(session, running.id)
        lock_places(session, running.id)  # arrivals read the status under it
        status = study_status(session, running.id)
        if status is StudyStatus.FINISHED:
            return _cut_short(session, running)
        if status not in OPEN:
            return False
        items = content_items(session, running.study.instrument_id)
        if not finished(precision_now(session, running.id, items, rule), rule):
            return False
        row = session.get(Study, running.id)
        assert row is not None
        row.status = StudyStatus.FINISHED
        session.add(row)
        record_event(
            session,
            EventKind.STUDY_FINISH_INTENT,
            study_id=running.id,
            subject=running.name,
            payload={"why": "every item reached its target or its cap", "from": status.value},
        )
        return True


def _cut_short(session: Session, running: LaunchedStudy) -> bool:
    return event_logged(
        session, EventKind.STUDY_FINISH_INTENT, running.name, running.id
    ) and not event_logged(session, EventKind.STUDY_FINISHED, running.name, running.id)
