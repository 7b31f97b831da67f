"""Serialize work on one study across processes: a lock held until the transaction ends.

Live screening reads a study's judgments, scores them and stores decisions; two task-server
processes doing that for the same study at the same moment would each store the same change.
`lock_study` makes them take turns (allocations of places and platform actions use it too).
On PostgreSQL it is a transaction-level advisory lock. On a SQLite file it is an exclusive
lock on a file beside the database (``<store>.study-<id>.lock``), taken by every process on
the machine (SQLite serves one machine), so that screening, which scores for a while, does not
hold the database's one write lock meanwhile and stop every submission from being stored.
Either way the lock is released when the transaction ends (commit or rollback), and a crashed
process holds nothing (the system drops a dead process's file locks).

On SQLite, take it before the transaction writes anything: a writer waiting for it while
holding the database's write lock would stop the others.
"""

from __future__ import annotations

import fcntl
import os
import zlib
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlmodel import Session

_NAMESPACE = zlib.crc32(b"harness.study") & 0x7FFFFFFF
_HELD = "harness.study_locks"


def lock_study(session: Session, study_id: int) -> None:
    """Wait for, then hold until the end of this transaction, the study's lock."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(
            sa.text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": _NAMESPACE, "key": study_id},
        )
        return
    database = bind.engine.url.database
    if bind.dialect.name == "sqlite" and database and database != ":memory:":
        _lock_file(session, f"{database}.study-{study_id}.lock")
        return
    # other databases, SQLite in memory: a write takes the database's write lock, waiting up
    # to the busy timeout; writing a row's value onto itself changes nothing
    session.execute(sa.text("UPDATE study SET status = status WHERE id = :id"), {"id": study_id})


def _lock_file(session: Session, path: str) -> None:
    """Hold ``path``'s lock for the transaction; taking it again in the same transaction is a
    no-op (a second open file would wait for the first: a deadlock with itself)."""
    session.connection()  # the transaction the lock lasts for, begun now if not yet
    held: dict[str, int] = session.info.setdefault(_HELD, {})
    if path in held:
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    held[path] = fd
    if not event.contains(session, "after_transaction_end", _release):
        event.listen(session, "after_transaction_end", _release)


def _release(session: Session, transaction: Any) -> None:
    """Drop the file locks when the session's outermost transaction ends."""
    if transaction.parent is not None:
        return
    held: dict[str, int] = session.info.get(_HELD, {})
    while held:
        os.close(held.popitem()[1])  # closing the file releases its lock
