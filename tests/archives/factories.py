"""Batch-results files as the requester website wrote them, for the import tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from sqlmodel import select

from harness.store import make_engine, session_scope, study_judgments
from harness.store.models import Study
from tests.archives.batch_download import format_time, write_batch_results

START = datetime(2021, 1, 20, 16, 0, tzinfo=UTC)
"""When the batches below were worked on (a fixed past date: an archive's)."""
JUDGMENT_COLUMNS = [
    "item_id",
    "worker_id",
    "value",
    "skipped",
    "assignment_id",
    "hit_id",
    "position",
    "shown_at",
    "answered_at",
]


def batch_row(hit: int, worker: int, items: list[str], values: list[str], **cells: str):
    """One row of a batch whose HITs show two items, ``Input.item_1`` and ``Input.item_2``,
    answered in ``Answer.rating_1`` and ``Answer.rating_2``."""
    row = {
        "HITId": f"3HIT{hit:04d}",
        "HITTypeId": "3TYPE",
        "Title": "Rate word pairs",
        "Reward": "$0.10",
        "MaxAssignments": "3",
        "AssignmentId": f"3ASG{hit:04d}W{worker:03d}",
        "WorkerId": f"A{worker:03d}WORKER",
        "AssignmentStatus": "Approved",
        "AcceptTime": format_time(START + timedelta(minutes=hit)),
        "SubmitTime": format_time(START + timedelta(minutes=hit, seconds=75)),
        "WorkTimeInSeconds": "75",
        "LifetimeApprovalRate": "100% (5/5)",
    }
    for n, (item, value) in enumerate(zip(items, values, strict=True), start=1):
        row[f"Input.item_{n}"] = item
        row[f"Answer.rating_{n}"] = value
    row.update(cells)
    return row


def mapped_batch(items: int = 4, workers: int = 3, seed: int = 0) -> list[dict[str, str]]:
    """Every item rated by ``workers`` workers, two items per HIT, values from a seed."""
    rows = []
    for hit in range(items // 2):
        keys = [f"p{2 * hit:02d}", f"p{2 * hit + 1:02d}"]
        for worker in range(workers):
            values = [str((seed + hit * 3 + worker * 5 + n) % 11) for n in range(2)]
            rows.append(batch_row(hit + 100 * seed, worker, keys, values))
    return rows


def write_batch(path: Path, rows: list[dict[str, str]]) -> Path:
    write_batch_results(rows, path)
    return path


def stored_judgments(db: str, name: str) -> pd.DataFrame:
    """The study's judgments, in a fixed order, as the comparisons read them."""
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study).where(Study.name == name)).one()
            assert study.id is not None
            frame = study_judgments(session, study.id)[JUDGMENT_COLUMNS]
    finally:
        engine.dispose()
    return frame.sort_values(["assignment_id", "position"]).reset_index(drop=True)


def study_names(db: str) -> list[str]:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return sorted(session.exec(select(Study.name)).all())
    finally:
        engine.dispose()


MAPPING = ["--item", "Input.item_{n}", "--value", "Answer.rating_{n}", "--per-row", "2"]
