"""Find a study in the store, and where it runs (what the launch recorded)."""

from __future__ import annotations

from sqlmodel import Session, select

from harness.errors import InputError
from harness.store.models import Hit, Study, StudyPlatform


def find_study(session: Session, name: str) -> Study:
    study = session.exec(select(Study).where(Study.name == name)).first()
    if study is None:
        names = sorted(session.exec(select(Study.name)))
        known = f"; studies in this store: {', '.join(names)}" if names else ""
        raise InputError(f"no study named {name!r} in the store{known}")
    return study


def platform_of(session: Session, study: Study) -> StudyPlatform:
    found = session.get(StudyPlatform, study.id)
    if found is None:
        raise InputError(f"study {study.name!r} was never launched (no platform record)")
    return found


def posted_count(session: Session, study_name: str) -> int:
    """How many of the study's HITs the store knows to be posted (0 for a new study)."""
    study = session.exec(select(Study).where(Study.name == study_name)).first()
    if study is None:
        return 0
    hits = session.exec(select(Hit).where(Hit.study_id == study.id)).all()
    return sum(1 for h in hits if h.platform_hit_id is not None)
