"""Persistence: the service's own SQLite file (WAL mode), ids, key-value settings, the balance.

Each request runs in one transaction (`Ctx.conn`); a restart (a new app on the same file) sees
everything that was committed. SQLite is used safely from several threads: each thread gets its
own connection from the pool, every transaction starts with BEGIN IMMEDIATE (it waits for the
write lock up front instead of failing to upgrade a read), and a busy timeout makes a second
process on the same file wait rather than fail. The BEGIN is SQLAlchemy's documented recipe for
pysqlite: the driver's own transaction handling is turned off and the "begin" event emits the
statement.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, select
from sqlalchemy.dialects.sqlite import insert

from harness.providers.mturk.local_service import models
from harness.providers.mturk.local_service.api_errors import RequestError
from harness.providers.mturk.pricing import format_amount

_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# The requester account this local service plays (appears in notification messages).
REQUESTER_ID = "A1LOCALREQUESTER00000000000000"


def new_id() -> str:
    """A random id in MTurk's format: upper-case letters and digits, 30 characters."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(30))


BUSY_TIMEOUT_MS = 10_000
POOL_SIZE = 64  # connections kept open: one per serving thread


def open_engine(path: Path) -> Engine:
    """Open (and create or upgrade if needed) the service's SQLite database in WAL mode."""
    from harness.providers.mturk.local_service import schema

    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        pool_size=POOL_SIZE,
        max_overflow=POOL_SIZE,
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never corrupt
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    schema.upgrade(engine)
    return engine


@dataclass
class Ctx:
    """One request's view of the service: its transaction (`conn`), the clock's reading,
    settings, and whether the transaction queued a notification to send afterwards."""

    conn: Connection
    now: float
    sqs_endpoint: str | None = None  # the local SQS notifications go to (None: refused)
    queued: bool = False  # a notification was put in the outbox


def get_meta(conn: Connection, key: str) -> str | None:
    row = conn.execute(select(models.meta.c.value).where(models.meta.c.key == key)).first()
    return None if row is None else row[0]


def set_meta(conn: Connection, key: str, value: str) -> None:
    row = insert(models.meta).values(key=key, value=value)
    conn.execute(row.on_conflict_do_update(index_elements=["key"], set_={"value": value}))


def init_balance(conn: Connection, starting: Decimal) -> None:
    if get_meta(conn, "balance") is None:
        set_meta(conn, "balance", format_amount(starting))


def balance(conn: Connection) -> Decimal:
    return Decimal(get_meta(conn, "balance") or "0")


def set_balance(conn: Connection, amount: Decimal) -> None:
    set_meta(conn, "balance", format_amount(amount))


def charge(conn: Connection, amount: Decimal) -> None:
    """Take `amount` from the balance, or refuse the whole operation if it is not there."""
    available = balance(conn)
    if amount > available:
        # MTurk's code for this is AWS.MechanicalTurk.InsufficientFunds; the wording is chosen.
        raise RequestError(
            "This Requester has insufficient funds in their account to complete this "
            f"transaction: it costs ${format_amount(amount)} and the available balance is "
            f"${format_amount(available)}.",
            "AWS.MechanicalTurk.InsufficientFunds",
        )
    set_balance(conn, available - amount)


def refund(conn: Connection, amount: Decimal) -> None:
    set_balance(conn, balance(conn) + amount)
