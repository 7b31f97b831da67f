"""A study's planned HITs in the store: recorded before posting, found again by index."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, select

from harness.store.events import EventKind, record_event
from harness.store.models import Hit, Study


def add_planned_hits(
    session: Session, study: Study, showings: Sequence[Sequence[str]], max_assignments: int
) -> list[Hit]:
    """The study's HIT rows, one per entry of ``showings`` (item keys per showing, by index).

    Idempotent: a HIT index already stored is returned as it is (its items must match, or the
    plan changed under a study that exists, which is refused).
    """
    assert study.id is not None
    stored = {h.index: h for h in session.exec(select(Hit).where(Hit.study_id == study.id))}
    hits = []
    for index, keys in enumerate(showings):
        found = stored.get(index)
        if found is not None:
            if list(found.items) != list(keys):
                raise ValueError(
                    f"study {study.name!r} already has HIT {index} with other items: the "
                    "plan changed since the study was created; create a new study"
                )
            hits.append(found)
            continue
        hit = Hit(study_id=study.id, index=index, max_assignments=max_assignments, items=list(keys))
        session.add(hit)
        hits.append(hit)
    session.flush()
    if len(stored) < len(showings):
        record_event(
            session,
            EventKind.HITS_PLANNED,
            study_id=study.id,
            subject=study.name,
            payload={"hits": len(showings), "new": len(showings) - len(stored)},
        )
    return hits


def study_hit(session: Session, study_id: int, index: int) -> Hit | None:
    """The study's HIT with this index, if planned."""
    return session.exec(select(Hit).where(Hit.study_id == study_id, Hit.index == index)).first()
