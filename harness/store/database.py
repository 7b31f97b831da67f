"""Which database, and how to connect: SQLite by default (WAL, foreign keys on), any URL else.

The URL comes from ``--db`` (a URL or a file path), else ``$HARNESS_DATABASE_URL``, else
``sqlite:///harness.db`` in the working directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
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


def make_engine(url: str) -> sa.Engine:
    """An engine; SQLite connections get WAL mode, foreign keys and a busy timeout."""
    engine = sa.create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


@contextmanager
def session_scope(engine: sa.Engine) -> Iterator[Session]:
    """A session committed on success and rolled back on error: one transaction."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
