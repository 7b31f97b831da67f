"""A study's judgments as a file to share: the long table as CSV, JSON lines or Parquet.

Two column sets: harness's own long table (every judgment with its timing, role, item display
columns and instrument hash), or crowd-kit's ``task, worker, label`` (answered real items only),
which crowd-kit's aggregators read unchanged. Pseudonymized, every platform id (worker,
assignment, HIT) is replaced by a keyed hash: HMAC-SHA256 under a key the store makes and keeps
(`harness.store.secrets`), so the same worker gets the same pseudonym in every export of one
store, nobody without the store can recover the id, and two stores' exports cannot be joined.
"""

from __future__ import annotations

import hashlib
import hmac
from enum import StrEnum
from pathlib import Path

import pandas as pd
import sqlalchemy as sa

from harness.errors import InputError
from harness.roles import ItemRole

PSEUDONYM_KEY = "export-pseudonym-key"
"""The name of the store's key for pseudonyms (`harness.store.secrets.store_secret`)."""

PLATFORM_IDS = ("worker_id", "assignment_id", "hit_id")
"""The columns that carry a platform's ids."""


class ExportFormat(StrEnum):
    CSV = "csv"
    JSONL = "jsonl"
    PARQUET = "parquet"


class ExportColumns(StrEnum):
    HARNESS = "harness"
    CROWDKIT = "crowdkit"


def pseudonym(value: str, key: str) -> str:
    """``value``'s keyed pseudonym: the first 16 hex digits of HMAC-SHA256 under ``key``."""
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()[:16]


def id_pseudonym(column: str, value: str, key: str) -> str:
    """The pseudonym of a platform id of ``column`` (``worker_id``...): its kind's prefix
    (``w-``, ``a-``, ``h-``), so that ids of different kinds are not confused, and `pseudonym`."""
    return column[0] + "-" + pseudonym(value, key)


def shared_judgments(
    engine: sa.Engine, study: str, *, pseudonymize: bool
) -> tuple[pd.DataFrame, str | None]:
    """STUDY's judgments as stored, and (``pseudonymize``) the store's pseudonym key, made on
    first use: what a command that shares a study's data reads, in one transaction."""
    from harness.store.database import session_scope
    from harness.store.judgment_table import study_judgments
    from harness.store.secrets import store_secret
    from harness.store.studies import find_study

    with session_scope(engine) as session:
        found = find_study(session, study)
        assert found.id is not None
        judgments = study_judgments(session, found.id)
        key = store_secret(session, PSEUDONYM_KEY) if pseudonymize else None
    return judgments, key


def pseudonymized(judgments: pd.DataFrame, key: str) -> pd.DataFrame:
    """``judgments`` with every platform id replaced by its pseudonym (missing ids stay missing);
    each kind of id gets its own prefix (``w-``, ``a-``, ``h-``) so they are not confused."""
    out = judgments.copy()
    for column in PLATFORM_IDS:
        if column in out:
            ids = out[column]
            hidden = {v: id_pseudonym(column, str(v), key) for v in ids.dropna().unique()}
            out[column] = ids.map(hidden).where(ids.notna(), ids)
    return out


def export_table(judgments: pd.DataFrame, columns: ExportColumns) -> pd.DataFrame:
    """The table to write: harness's long table as stored, or crowd-kit's columns (answered
    real items: ``task`` = item, ``worker``, ``label`` = value)."""
    if columns is ExportColumns.HARNESS:
        return judgments.reset_index(drop=True)
    answered = judgments[
        (judgments["role"] == ItemRole.ITEM)
        & ~judgments["skipped"].astype(bool)
        & judgments["value"].notna()
    ]
    return pd.DataFrame(
        {
            "task": answered["item_id"].astype(str).to_numpy(),
            "worker": answered["worker_id"].astype(str).to_numpy(),
            "label": answered["value"].astype(float).to_numpy(),
        }
    )


def write_export(table: pd.DataFrame, path: Path, form: ExportFormat) -> None:
    """Write ``table`` to ``path`` as ``form`` (via a temporary file, so a failed write leaves
    no half file behind)."""
    partial = path.with_name(path.name + ".partial")
    try:
        if form is ExportFormat.CSV:
            table.to_csv(partial, index=False)
        elif form is ExportFormat.JSONL:
            table.to_json(partial, orient="records", lines=True, date_format="iso")
        else:
            _require_pyarrow()
            table.to_parquet(partial, index=False)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise InputError(
            "export: parquet needs pyarrow, which is not installed: "
            "pip install 'harness[parquet]' (or choose --format csv or jsonl)"
        ) from exc
