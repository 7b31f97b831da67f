"""Bring a database file made by an older version of the service up to the current tables.

New tables and indexes are created, and columns added since are added with their defaults. A
file already up to date is left as it is.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine

from harness.providers.mturk.local_service import models

# Columns added after the first release, as SQLite's ALTER TABLE ADD COLUMN takes them.
ADDED_COLUMNS: dict[str, dict[str, str]] = {
    "hit_types": {"disposed": "BOOLEAN NOT NULL DEFAULT 0"},
    "outbox": {
        "next_try": "FLOAT NOT NULL DEFAULT 0",
        "gave_up": "BOOLEAN NOT NULL DEFAULT 0",
        "last_error": "TEXT",
    },
    "workers": {"master": "BOOLEAN", "adult": "BOOLEAN"},
}


def _columns(conn: Connection, table: str) -> set[str]:
    return {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}


def upgrade(engine: Engine) -> None:
    """Create what is missing and add the columns an older file lacks."""
    models.metadata.create_all(engine)
    with engine.begin() as conn:
        for table, columns in ADDED_COLUMNS.items():
            have = _columns(conn, table)
            for name, ddl in columns.items():
                if name not in have:
                    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")
        for each in models.metadata.tables.values():
            for index in each.indexes:
                index.create(conn, checkfirst=True)
