"""Prolific's submissions export (with its demographic columns) joined to a study's workers.

The export's header is read whatever its spelling (``Participant id``, ``participant_id``):
names are compared lower-cased with spaces as underscores. The join keeps every worker of the
study (a worker the export lacks gets empty cells) and every submission of the export of one
of them (a participant who returned and came back has two rows); participants who are not the
study's workers are left out and counted. Pseudonymized, the worker id is the pseudonym of
`harness export --pseudonymize` (so the two files join) and the export's other ids are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.errors import InputError

PARTICIPANT = "participant_id"
_ID = re.compile(r"(^|_)(id|code)$")
"""An export column holding an id (dropped when pseudonymized): ``submission_id``,
``session_id``, ``completion_code``."""


@dataclass(frozen=True)
class JoinedExport:
    table: pd.DataFrame  # worker_id, then the export's columns
    matched: int  # workers of the study found in the export
    missing: int  # workers of the study the export lacks
    left_out: int  # export rows of participants who are not the study's workers


def read_prolific_export(path: Path) -> pd.DataFrame:
    """The export's rows, every cell text, the header normalized; `InputError` naming the file
    (and the line of a byte that is not UTF-8) when it cannot be read as an export."""
    data = path.read_bytes() if path.is_file() else None
    if data is None:
        raise InputError(f"{path}: no such file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 text; use the file as Prolific gave it"
        ) from exc
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{path}: not a CSV export: {exc}") from exc
    frame.columns = [_normal(c) for c in frame.columns]
    if PARTICIPANT not in frame.columns:
        raise InputError(
            f"{path}:1: no 'Participant id' column: not a Prolific submissions export "
            f"(columns: {', '.join(frame.columns[:8])})"
        )
    twice = frame.columns[frame.columns.duplicated()]
    if len(twice):
        raise InputError(f"{path}:1: column {twice[0]!r} appears twice in the header")
    return frame


def join_workers(
    workers: Sequence[str], export: pd.DataFrame, hide: Callable[[str], str] | None = None
) -> JoinedExport:
    """``export``'s rows of the study's ``workers`` (one row per worker at least), with the
    worker's id as ``hide`` gives it (None: as stored)."""
    ids = export[PARTICIPANT].str.strip()
    ours = ids.isin(set(workers))
    kept = export[ours].assign(**{PARTICIPANT: ids[ours]})
    study = pd.DataFrame({PARTICIPANT: sorted(set(workers))})
    joined = study.merge(kept, on=PARTICIPANT, how="left").fillna("")
    found = set(kept[PARTICIPANT])
    worker_id = joined.pop(PARTICIPANT)
    if hide is not None:
        worker_id = worker_id.map(hide)
        joined = joined[[c for c in joined.columns if not _ID.search(c)]]
    joined.insert(0, "worker_id", worker_id)
    return JoinedExport(
        joined,
        matched=len(found),
        missing=len(study) - len(found),
        left_out=int((~ours).sum()),
    )


def _normal(name: str) -> str:
    return re.sub(r"\s+", "_", str(name).strip().lower())
