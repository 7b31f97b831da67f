"""The local Prolific service's state: one SQLite file (WAL), one lock, a controllable clock.

Every request runs one transaction under the lock (`Store.tx`), so a place, a status change or a
payment is decided once. Rows are plain JSON-friendly dicts; money is in the workspace's minor
unit (cents or pence, as Prolific's API reports it; the currency is chosen when the file is
made) and converted to `Decimal` only at the edges. A workspace has a default project.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS study (
    id TEXT PRIMARY KEY, body TEXT NOT NULL, status TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS submission (
    id TEXT PRIMARY KEY, study_id TEXT NOT NULL, participant_id TEXT NOT NULL,
    status TEXT NOT NULL, started REAL NOT NULL, completed REAL, entered_code TEXT,
    return_requested REAL, bonuses TEXT NOT NULL DEFAULT '[]', seq INTEGER NOT NULL,
    UNIQUE (study_id, participant_id));
CREATE TABLE IF NOT EXISTS participant_group (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, workspace_id TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS group_member (
    group_id TEXT NOT NULL, participant_id TEXT NOT NULL, PRIMARY KEY (group_id, participant_id));
CREATE TABLE IF NOT EXISTS bonus (
    id TEXT PRIMARY KEY, study_id TEXT NOT NULL, rows TEXT NOT NULL, amount INTEGER NOT NULL,
    fees INTEGER NOT NULL, vat INTEGER NOT NULL, paid INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS bonus_payment (
    id INTEGER PRIMARY KEY AUTOINCREMENT, bonus_id TEXT NOT NULL, asked REAL NOT NULL,
    paid REAL);
CREATE TABLE IF NOT EXISTS participant (id TEXT PRIMARY KEY, profile TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS project (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, workspace_id TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS message (
    id INTEGER PRIMARY KEY AUTOINCREMENT, sender_id TEXT NOT NULL, recipient_id TEXT NOT NULL,
    study_id TEXT NOT NULL, body TEXT NOT NULL, sent REAL NOT NULL);
CREATE TABLE IF NOT EXISTS hook_subscription (
    id TEXT PRIMARY KEY, event_type TEXT NOT NULL, target_url TEXT NOT NULL,
    workspace_id TEXT NOT NULL, enabled INTEGER NOT NULL, confirmed INTEGER NOT NULL,
    confirm_secret TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hook_delivery (
    id INTEGER PRIMARY KEY AUTOINCREMENT, subscription_id TEXT NOT NULL, event_id TEXT NOT NULL,
    body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, due REAL NOT NULL);
"""

WORKSPACE = "6543210fedcba98765432100"
RESEARCHER = "6543210fedcba98765432101"


def new_id() -> str:
    """A 24-hex-digit id, the shape of Prolific's ids."""
    return secrets.token_hex(12)


class Store:
    def __init__(self, path: Path, balance_cents: int, currency: str = "USD") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=10000")
        self.db.executescript(SCHEMA)
        self.lock = threading.RLock()
        self.deliveries: Any = None  # the hooks' `outbox.Deliveries`, set by the app
        self.bonus_delay = 0.0  # seconds of the clock before a bonus paid is made
        with self.tx() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('balance', ?)", (str(balance_cents),))
            db.execute("INSERT OR IGNORE INTO meta VALUES ('clock_offset', '0')")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('seq', '0')")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('currency', ?)", (currency,))
            if db.execute("SELECT 1 FROM project").fetchone() is None:
                db.execute(
                    "INSERT INTO project VALUES (?, 'Default project', ?, 0)", (new_id(), WORKSPACE)
                )

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        if self.deliveries is not None:
            self.deliveries.stop()
        self.db.close()

    # -- small helpers, inside a transaction -------------------------------------------------
    def meta(self, db: sqlite3.Connection, key: str) -> str:
        return str(db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0])

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def now(self, db: sqlite3.Connection) -> float:
        return time.time() + float(self.meta(db, "clock_offset"))

    def seq(self, db: sqlite3.Connection) -> int:
        n = int(self.meta(db, "seq")) + 1
        self.set_meta(db, "seq", str(n))
        return n

    def currency(self, db: sqlite3.Connection) -> str:
        return self.meta(db, "currency")

    def study(self, db: sqlite3.Connection, study_id: str) -> dict[str, Any] | None:
        row = db.execute("SELECT body, status FROM study WHERE id = ?", (study_id,)).fetchone()
        if row is None:
            return None
        body: dict[str, Any] = json.loads(row["body"])
        body["status"] = row["status"]
        return body

    def save_study(self, db: sqlite3.Connection, body: dict[str, Any]) -> None:
        stored = {k: v for k, v in body.items() if k != "status"}
        db.execute(
            "UPDATE study SET body = ?, status = ? WHERE id = ?",
            (json.dumps(stored), body["status"], body["id"]),
        )
