"""End a study early: expire its HITs so nobody new starts; what was submitted stays."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import select

from harness.platform.contract import Provider
from harness.store.database import session_scope
from harness.store.events import EventKind, record_event
from harness.store.models import Hit, HitStatus, Study, StudyStatus
from harness.store.studies import LaunchedStudy


def expire_study(engine: sa.Engine, provider: Provider, running: LaunchedStudy) -> int:
    """Expire every posted HIT of the study (intent and result logged) and mark the study
    expired; how many HITs were expired.

    Idempotent: expiring an expired HIT again changes nothing. Sync afterwards to collect the
    assignments workers were still doing when the HITs expired and submit later.
    """
    expired = expire_units(engine, provider, running)
    with session_scope(engine) as session:
        study = session.get(Study, running.id)
        assert study is not None
        if study.status is not StudyStatus.EXPIRED:
            study.status = StudyStatus.EXPIRED
            session.add(study)
            record_event(session, EventKind.STUDY_EXPIRED, study_id=study.id, subject=study.name)
    return expired


def expire_units(engine: sa.Engine, provider: Provider, running: LaunchedStudy) -> int:
    """Expire every posted HIT of the study not disposed yet, each intent and result logged
    (on a platform with places, the platform's study is stopped); how many. Idempotent."""
    study_id = running.id
    with session_scope(engine) as session:
        hits = [
            (h.id, h.platform_hit_id)
            for h in session.exec(select(Hit).where(Hit.study_id == study_id))
            if h.platform_hit_id is not None and h.status is not HitStatus.DISPOSED
        ]
    for hit_id, platform_id in hits:
        assert platform_id is not None
        with session_scope(engine) as session:
            record_event(
                session, EventKind.HIT_EXPIRE_INTENT, study_id=study_id, subject=platform_id
            )
        provider.expire(platform_id)
        unit = provider.unit(platform_id)
        with session_scope(engine) as session:
            hit = session.get(Hit, hit_id)
            assert hit is not None
            hit.status = HitStatus(unit.state.value)
            session.add(hit)
            record_event(
                session,
                EventKind.HIT_EXPIRED,
                study_id=study_id,
                subject=platform_id,
                payload={"status": unit.state.value},
            )
    return len(hits)
