"""Which database, and how to connect: SQLite by default (WAL, foreign keys on), any URL else.

The URL comes from ``--db`` (a URL or a file path), else ``$HARNESS_DATABASE_URL``, else
``sqlite:///harness.db`` in the working directory.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event

from harness.errors import StoreError

if TYPE_CHECKING:
    from sqlmodel import Session

ENV_VAR = "HARNESS_DATABASE_URL"
DEFAULT_URL = "sqlite:///harness.db"


def database_url(db: str | None = None) -> str:
    """The SQLAlchemy URL to use; a bare path means a SQLite file."""
    chosen = db or os.environ.get(ENV_VAR) or DEFAULT_URL
    if "://" not in chosen:
        chosen = f"sqlite:///{chosen}"
    if chosen.startswith("postgresql://"):
        chosen = "postgresql+psycopg://" + chosen.removeprefix("postgresql://")
    return chosen


def safe_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return "<an invalid database URL>"


def describe_error(exc: BaseException, url: str | None) -> str | None:
    """What a person should know about a database error, naming the store (no password) and
    what to do; None when ``exc`` is not a problem with the store itself."""
    import re

    kinds = (sa.exc.OperationalError, sa.exc.ProgrammingError, sa.exc.InterfaceError)
    if not isinstance(exc, kinds):
        return None
    text = str(exc.orig) if getattr(exc, "orig", None) is not None else str(exc)
    where = safe_url(url) if url else "the store"
    missing = re.search(r'no such table: (\w+)|relation "(\w+)" does not exist', text)
    if missing:
        table = missing[1] or missing[2]
        return (
            f"the store has no {table} table: create or update its schema with "
            "`harness db upgrade` (with the same --db)"
        )
    if re.search(r'no such column: \S+|column "?[\w.]+"? does not exist', text):
        return (
            f"{where} was made by an older harness (its tables lack a column this one reads): "
            "update its schema with `harness db upgrade` (with the same --db)"
        )
    if re.search(r'database "[^"]+" does not exist', text):
        return f"{where}: the database does not exist; create it (e.g. createdb) or fix --db"
    if "unable to open database file" in text:
        return (
            f"{where}: cannot open the SQLite file (does its folder exist and is it "
            "writable?); fix --db"
        )
    if isinstance(exc, sa.exc.OperationalError):
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        return f"{where}: cannot connect ({first}); is the database running, and is --db right?"
    return None


SQLITE_BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite write waits for another's to finish before failing: under a burst the
writers queue (each holds the lock for milliseconds) instead of answering "database is
locked"."""

POOL_TIMEOUT = 30
"""Seconds a request waits for a free connection before it fails."""


def _empty_sqlite(url: str) -> bool:
    """Whether ``url`` names a SQLite file with nothing in it (made by connecting to it)."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return False
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return False
    return os.path.isfile(parsed.database) and os.path.getsize(parsed.database) == 0


def make_engine(url: str, *, pool_size: int | None = None) -> sa.Engine:
    """An engine; SQLite connections get WAL mode, foreign keys and a busy timeout.

    ``pool_size``: the connections this process keeps open, as many as it serves requests at
    once (a task server's threads), so no request waits for a connection; a few more may be
    opened for a moment (screening after a submission). Connections are checked before use,
    so one the database server dropped is replaced, not handed to a request.
    """
    options: dict[str, Any] = {"pool_pre_ping": True}
    if pool_size is not None:
        options.update(
            pool_size=pool_size, max_overflow=max(2, pool_size // 2), pool_timeout=POOL_TIMEOUT
        )
    engine = sa.create_engine(url, **options)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    pool = type(engine.pool)
    logging.getLogger(f"{pool.__module__}.{pool.__name__}").addFilter(_not_after_ctrl_c)
    return engine


def _not_after_ctrl_c(record: logging.LogRecord) -> bool:
    """Drop the pool's "Error closing cursor" when Ctrl-C (or SIGTERM, raised as one) cut
    a query short: the command reports the interrupt itself, and a traceback about a cursor
    nobody will use again only reads as a second failure."""
    exc = record.exc_info[1] if record.exc_info else None
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return False
        exc = exc.__context__
    return True


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def store_exists(db: str | None = None) -> bool:
    """Whether the store could hold data already: a SQLite file that exists (or an in-memory
    one), or any server URL (asked without creating anything)."""
    url = database_url(db)
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        return True  # not a URL at all: connecting says so
    if not parsed.get_backend_name() == "sqlite":
        return True
    path = parsed.database or ""
    return path in ("", ":memory:") or path.startswith("file:") or os.path.exists(path)


def open_store(db: str | None = None) -> sa.Engine:
    """An engine on the store named by ``db`` (see `database_url`); dispose it when done.

    A SQLite file that does not exist is a `StoreError` saying so, and nothing is created:
    connecting would create an empty file where the user mistyped a path.
    """
    if not store_exists(db):
        raise StoreError(missing_store_message(db))
    if _empty_sqlite(database_url(db)):  # an empty file is no store either
        raise StoreError(missing_store_message(db, "an empty file"))
    return make_engine(database_url(db))


@contextmanager
def opened_store(db: str | None = None) -> Iterator[sa.Engine]:
    """`open_store` for the length of a block: the engine, disposed when the block ends."""
    engine = open_store(db)
    try:
        yield engine
    finally:
        engine.dispose()


def missing_store_message(db: str | None, found: str = "nothing was created there") -> str:
    """What to say when the store ``db`` names does not exist (nothing was created), or is
    ``found`` instead."""
    url = database_url(db)
    path = sa.engine.make_url(url).database or url
    return (
        f"there is no store at {path} ({found}): give --db the store the "
        f"study was launched with (or set ${ENV_VAR}); `harness launch` creates a store"
    )


@contextmanager
def session_scope(engine: sa.Engine) -> Iterator[Session]:
    """A session committed on success and rolled back on error: one transaction."""
    from sqlmodel import Session

    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
