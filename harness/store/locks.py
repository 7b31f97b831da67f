"""Serialize work on one study across processes, by the database: a lock held until commit.

Live screening reads a study's judgments, scores them and stores decisions; two task-server
processes doing that for the same study at the same moment would each store the same change.
`lock_study` makes them take turns: on PostgreSQL a transaction-level advisory lock, on SQLite
the database's write lock (taken by a write). Either way the lock is released when the
transaction ends, so a crashed process holds nothing.

On SQLite the lock must be the transaction's first statement: a transaction that read first
and then asks for the write lock after another process committed is refused, not queued.
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
from sqlmodel import Session

_NAMESPACE = zlib.crc32(b"harness.study") & 0x7FFFFFFF


def lock_study(session: Session, study_id: int) -> None:
    """Wait for, then hold until the end of this transaction, the study's lock."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(
            sa.text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": _NAMESPACE, "key": study_id},
        )
        return
    # SQLite (and others): a write takes the database's write lock, waiting up to the busy
    # timeout; writing a row's value onto itself changes nothing.
    session.execute(sa.text("UPDATE study SET status = status WHERE id = :id"), {"id": study_id})
