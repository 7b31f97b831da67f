"""Put a simulated study into the judgment store, one assignment at a time.

For tests, demos and benchmarks of what happens as work arrives (live screening): the long
table of `simulate_judgments` becomes HIT, worker, assignment and judgment rows of a stored
study, in the table's assignment order, and each stored assignment is yielded so the caller can
react to it before the next one arrives. HITs are named by the part of ``assignment_id``
before the last ``-`` (``a001-03`` is the third assignment of HIT ``a001``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session, select

from harness.page_signals import SIGNAL_COLUMNS
from harness.roles import ItemRole
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    Hit,
    InstrumentVersion,
    Item,
    Judgment,
    Study,
)
from harness.store.submissions import worker_row


def store_assignments(session: Session, study: Study, table: pd.DataFrame) -> Iterator[Assignment]:
    """Store ``table``'s assignments in ``study``, yielding each once its judgments are flushed.

    HITs already stored for the study (by an earlier call) are reused; each allows the spec's
    ``raters_per_item`` assignments.

    Platform ids are prefixed with the study id (they are unique across the store); worker
    ids are kept as they are, so the stored long table names the same workers.
    """
    assert study.id is not None
    items: dict[str, int] = {
        key: pk
        for key, pk in session.exec(
            select(Item.key, Item.id).where(Item.instrument_id == study.instrument_id)
        ).all()
        if pk is not None
    }
    missing = sorted(set(table["item_id"].astype(str)) - set(items))
    if missing:
        raise ValueError(f"items not in the study's instrument: {', '.join(missing[:5])}")
    hits = {
        str(h.platform_hit_id).split("-", 1)[1]: h
        for h in session.exec(select(Hit).where(Hit.study_id == study.id)).all()
    }
    workers: dict[str, int] = {}
    version = session.get(InstrumentVersion, study.instrument_id)
    assert version is not None
    raters = int(version.spec["raters_per_item"])
    for assignment_key, part in table.groupby("assignment_id", sort=False):
        name = str(assignment_key)
        hit_key = name.rsplit("-", 1)[0]
        hit = hits.get(hit_key)
        if hit is None:
            hit = Hit(
                study_id=study.id,
                index=len(hits),
                platform_hit_id=f"{study.id}-{hit_key}",
                max_assignments=raters,
                items=list(dict.fromkeys(part["item_id"].astype(str))),
            )
            session.add(hit)
            session.flush()
            hits[hit_key] = hit
        worker_key = str(part["worker_id"].iloc[0])
        if worker_key not in workers:
            workers[worker_key] = _worker(session, worker_key)
        assignment = Assignment(
            hit_id=hit.id,  # type: ignore[arg-type]
            worker_id=workers[worker_key],
            platform_assignment_id=f"{study.id}-{name}",
            status=AssignmentStatus.SUBMITTED,
        )
        session.add(assignment)
        session.flush()
        session.execute(sa.insert(Judgment), _judgments(part, assignment, study, items))
        yield assignment


def _worker(session: Session, name: str) -> int:
    worker = worker_row(session, name)
    assert worker.id is not None
    return worker.id


def _judgments(
    part: pd.DataFrame, assignment: Assignment, study: Study, items: dict[str, int]
) -> list[dict[str, object]]:
    values = pd.to_numeric(part["value"], errors="coerce")
    skipped = part["skipped"] if "skipped" in part.columns else pd.Series(False, index=part.index)
    seconds = part["seconds"] if "seconds" in part.columns else pd.Series(None, index=part.index)
    role = part["role"] if "role" in part.columns else pd.Series(ItemRole.ITEM, index=part.index)
    signals = [c for c in SIGNAL_COLUMNS if c in part.columns]  # the page signals simulated
    extra = part[signals].astype(object).where(part[signals].notna(), None).to_dict("records")
    rows = [
        {
            "assignment_id": assignment.id,
            "item_id": items[str(item)],
            "worker_id": assignment.worker_id,
            "instrument_id": study.instrument_id,
            "position": position,
            "value": None if pd.isna(value) else float(value),
            "skipped": bool(skip),
            "role": ItemRole(str(kind)),
            "seconds": None if pd.isna(secs) else float(secs),
        }
        for position, (item, value, skip, kind, secs) in enumerate(
            zip(part["item_id"], values, skipped, role, seconds, strict=True)
        )
    ]
    return [
        row | {str(k): _plain(v) for k, v in more.items()}
        for row, more in zip(rows, extra, strict=True)
    ]


def _plain(value: object) -> object:
    """A numpy scalar as the Python value the database driver takes."""
    return value.item() if isinstance(value, np.generic) else value


__all__ = ["store_assignments"]
