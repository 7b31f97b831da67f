"""Bring a database file made by an older version of the service up to the current tables.

New tables and indexes are created; columns added since are added with their defaults, and the
counts kept on rows (a HIT's assignments by state, a worker's approved and rejected work) are
computed once from the assignments. A file already up to date is left as it is.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

from harness.providers.mturk.local_service import models

# Columns added after the first release, as SQLite's ALTER TABLE ADD COLUMN takes them.
ADDED_COLUMNS: dict[str, dict[str, str]] = {
    "hit_types": {"disposed": "BOOLEAN NOT NULL DEFAULT 0"},
    "outbox": {
        "next_try": "FLOAT NOT NULL DEFAULT 0",
        "gave_up": "BOOLEAN NOT NULL DEFAULT 0",
        "last_error": "TEXT",
    },
    "hits": {
        "n_pending": "INTEGER NOT NULL DEFAULT 0",
        "n_submitted": "INTEGER NOT NULL DEFAULT 0",
        "n_completed": "INTEGER NOT NULL DEFAULT 0",
        "n_available": "INTEGER NOT NULL DEFAULT 0",
    },
    "workers": {
        "master": "BOOLEAN",
        "adult": "BOOLEAN",
        "n_approved": "INTEGER NOT NULL DEFAULT 0",
        "n_rejected": "INTEGER NOT NULL DEFAULT 0",
    },
}

_HIT_COUNTS = """
UPDATE hits SET
  n_pending = (SELECT count(*) FROM assignments a
               WHERE a.hit_id = hits.id AND a.status = 'Accepted'),
  n_submitted = (SELECT count(*) FROM assignments a
                 WHERE a.hit_id = hits.id AND a.status = 'Submitted'),
  n_completed = (SELECT count(*) FROM assignments a
                 WHERE a.hit_id = hits.id AND a.status IN ('Approved', 'Rejected'))
"""
_HIT_AVAILABLE = """
UPDATE hits SET n_available = max(0, max_assignments - n_pending - n_submitted - n_completed)
"""
_WORKER_ROWS = "INSERT OR IGNORE INTO workers (id) SELECT DISTINCT worker_id FROM assignments"
_WORKER_COUNTS = """
UPDATE workers SET
  n_approved = (SELECT count(*) FROM assignments a
                WHERE a.worker_id = workers.id AND a.status = 'Approved'),
  n_rejected = (SELECT count(*) FROM assignments a
                WHERE a.worker_id = workers.id AND a.status = 'Rejected')
"""


def _columns(conn: Connection, table: str) -> set[str]:
    return {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}


def upgrade(engine: Engine) -> None:
    """Create what is missing; add and fill the columns an older file lacks."""
    models.metadata.create_all(engine)
    with engine.begin() as conn:
        added: set[str] = set()
        for table, columns in ADDED_COLUMNS.items():
            have = _columns(conn, table)
            for name, ddl in columns.items():
                if name not in have:
                    conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")
                    added.add(table)
        if "hits" in added:
            conn.execute(text(_HIT_COUNTS))
            conn.execute(text(_HIT_AVAILABLE))
        if "workers" in added:
            conn.execute(text(_WORKER_ROWS))
            conn.execute(text(_WORKER_COUNTS))
        for each in models.metadata.tables.values():
            for index in each.indexes:
                index.create(conn, checkfirst=True)
