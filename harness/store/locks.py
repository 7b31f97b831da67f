"""Serialize work on one study across processes: locks held until the transaction ends.

Two locks per study, each taken by the work that must not interleave with itself:

- `lock_study`: live screening reads a study's judgments, scores them and stores decisions;
  two task-server processes doing that for the same study at the same moment would each store
  the same change, so they take turns. Platform actions begun from screening's decisions
  (`harness.store.action_claims`) take it too.
- `lock_places`: the study's places (slots, and the assignments they hold). Arrivals take it
  (`harness.store.allocation.allocate`, `harness.store.arm_assignment`), and so does every
  change to what an arrival decides from: the study's status (pause, resume), a worker's
  block or unblock, a slot freed by the platform (`allocation.release`), the slots made at
  launch. So an arrival sees each of those wholly before or wholly after it, and arrivals no
  longer wait for a screening pass, which holds the study's lock for a while.

Lock order: the study's lock first, then its places lock, never the other way. A pause (or a
recovered block) holds the study's lock and waits for the places lock; a transaction holding
the places lock and waiting for the study's lock would wait for it for ever. `lock_study`
refuses (`LockOrderError`) when the transaction holds a places lock already.

On PostgreSQL each is a transaction-level advisory lock (one namespace each). On a SQLite file
each is an exclusive lock on a file beside the database (``<store>.study-<id>.lock``,
``<store>.places-<id>.lock``), taken by every process on the machine (SQLite serves one
machine), so that a holder, which may work for a while, does not hold the database's one write
lock meanwhile and stop every submission from being stored. Either way a lock is released when
the transaction ends (commit or rollback), and a crashed process holds nothing (the system
drops a dead process's file locks). Taking a lock the transaction holds already is a no-op.

On SQLite, take the locks before the transaction writes anything: a writer waiting for a lock
file while holding the database's write lock would stop the holder of that file the moment it
writes, and neither would go on. A lock taken after a write warns (`LockAfterWriteWarning`,
an error in the tests).
"""

from __future__ import annotations

import fcntl
import os
import warnings
import zlib
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlmodel import Session

_STUDY = zlib.crc32(b"harness.study") & 0x7FFFFFFF
_PLACES = zlib.crc32(b"harness.places") & 0x7FFFFFFF
_HELD = "harness.study_locks"  # session.info: the locks this transaction holds -> file or None


class LockOrderError(RuntimeError):
    """A study's lock asked for while the transaction holds a places lock (see the module
    docstring): a programming error, which could deadlock with a pause."""


def lock_study(session: Session, study_id: int) -> None:
    """Wait for, then hold until the end of this transaction, the study's lock (screening,
    platform actions). Take it before `lock_places`, never after."""
    held: dict[tuple[str, int], int | None] = session.info.get(_HELD, {})
    if ("study", study_id) in held:
        return
    places = sorted(key for kind, key in held if kind == "places")
    if places:
        raise LockOrderError(
            f"the study {study_id}'s lock was asked for while holding the places lock of study "
            f"{places[0]}: take the study's lock first (harness.store.locks)"
        )
    _lock(session, "study", _STUDY, study_id)


def lock_places(session: Session, study_id: int) -> None:
    """Wait for, then hold until the end of this transaction, the lock of the study's places:
    arrivals take turns under it, and whatever changes what they decide from takes it too."""
    _lock(session, "places", _PLACES, study_id)


def _lock(session: Session, kind: str, space: int, study_id: int) -> None:
    session.connection()  # the transaction the lock lasts for, begun now if not yet
    held: dict[tuple[str, int], int | None] = session.info.setdefault(_HELD, {})
    if (kind, study_id) in held:
        return
    bind = session.get_bind()
    database = bind.engine.url.database
    fd: int | None = None
    if bind.dialect.name == "postgresql":
        session.execute(
            sa.text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": space, "key": study_id},
        )
    elif bind.dialect.name == "sqlite" and database and database != ":memory:":
        _check_not_begun(session, kind, study_id)
        fd = _lock_file(f"{database}.{kind}-{study_id}.lock")
    else:
        # other databases, SQLite in memory: a write takes the database's write lock, waiting
        # up to the busy timeout; writing a row's value onto itself changes nothing
        session.execute(
            sa.text("UPDATE study SET status = status WHERE id = :id"), {"id": study_id}
        )
    if session.in_nested_transaction():
        if fd is not None:  # a file lock lasts for the outermost transaction
            held[(kind, study_id)] = fd
        # an advisory lock taken in a savepoint is the savepoint's: not remembered, taken again
    else:
        held[(kind, study_id)] = fd
    if not event.contains(session, "after_transaction_end", _release):
        event.listen(session, "after_transaction_end", _release)


class LockAfterWriteWarning(RuntimeWarning):
    """A SQLite lock file waited for by a transaction that has begun writing (see the module
    docstring): it could wait for ever, or fail after the busy timeout."""


def _check_not_begun(session: Session, kind: str, study_id: int) -> None:
    """Warn when this SQLite transaction has written already (the driver begins a transaction
    at the first write, or a savepoint), before it waits for a lock file."""
    raw = session.connection().connection.dbapi_connection
    if getattr(raw, "in_transaction", False):
        warnings.warn(
            f"the {kind} lock of study {study_id} is taken after this SQLite transaction wrote; "
            "take it first (harness.store.locks)",
            LockAfterWriteWarning,
            stacklevel=4,
        )


def _lock_file(path: str) -> int:
    """An open file holding ``path``'s exclusive lock (waited for)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _release(session: Session, transaction: Any) -> None:
    """Forget the locks (closing the lock files releases theirs) when the session's outermost
    transaction ends."""
    if transaction.parent is not None:
        return
    held: dict[tuple[str, int], int | None] = session.info.get(_HELD, {})
    while held:
        fd = held.popitem()[1]
        if fd is not None:
            os.close(fd)  # closing the file releases its lock
