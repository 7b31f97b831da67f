"""The running service: database, clock, fault switches, notification sender, locks.

Requests are served by several threads (gunicorn's threaded worker). Write transactions run one
at a time under one lock: SQLite lets one writer in at a time anyway (BEGIN IMMEDIATE), and a
lock queues them without SQLite's busy-wait polling. What must happen once is not left to the
lock: the database enforces it (a slot is taken by a conditional update, one live assignment
per worker and HIT by a unique index). Reads (listing HITs, previews, the requester's Get and
List calls) take no lock: each reads a consistent snapshot (WAL) while a writer commits, unless
something has fallen due, when the request runs as a write transaction that first sweeps. Work
outside a transaction (added latency, sending notifications) runs concurrently.

Two things a request would otherwise look up every time are kept in memory: when the next
deadline, auto-approval or expiry falls due (the lifecycle sweep is skipped until then; every
transaction that sets such a time lowers it, and it is only raised by a sweep that committed),
and whether the outbox may hold undelivered notifications.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app
from sqlalchemy import Connection

from harness.providers.mturk.local_service import lifecycle
from harness.providers.mturk.local_service.clock import Clock, ClockError
from harness.providers.mturk.local_service.faults import FaultSwitches
from harness.providers.mturk.local_service.notifications import SqsSender, deliver_pending
from harness.providers.mturk.local_service.settings import Settings
from harness.providers.mturk.local_service.state import (
    READ_ONLY,
    Ctx,
    get_meta,
    init_balance,
    open_engine,
    set_meta,
)

log = logging.getLogger(__name__)


class Service:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = open_engine(settings.db_path)
        self.read_engine = self.engine.execution_options(**{READ_ONLY: True})
        self.lock = threading.RLock()
        self._delivering = threading.Lock()
        self._more_to_deliver = False
        self._outbox_dirty = True  # unknown until the first delivery looks
        self._next_due = -math.inf  # unknown until the first sweep looks
        self.faults = FaultSwitches(seed=settings.fault_seed)
        self.sender = SqsSender(settings.sqs_endpoint_url)
        with self.engine.begin() as conn:
            init_balance(conn, settings.starting_balance)
            saved = get_meta(conn, "clock")
        self.clock = Clock()
        if saved:
            try:
                self.clock = Clock.restore(json.loads(saved))
            except (ValueError, ClockError) as exc:
                log.warning("the saved clock was unusable and is reset to real time: %s", exc)
                self.save_clock()

    @contextmanager
    def transaction(self) -> Iterator[Ctx]:
        """One request's transaction, with the state first brought up to the clock's time.

        Only the transaction itself runs under the lock: the connection is taken from the pool
        before and given back after.
        """
        with self.engine.connect() as conn, self.lock:
            with conn.begin():  # BEGIN IMMEDIATE (`state.open_engine`)
                ctx = self._ctx(conn, self.clock.now())
                swept = lifecycle.sweep(ctx) if ctx.now >= self._next_due else None
                yield ctx
            # Committed: what this transaction did now holds.
            self._next_due = min(self._next_due if swept is None else swept, ctx.new_due)
            self._outbox_dirty = self._outbox_dirty or ctx.queued

    @contextmanager
    def reading(self) -> Iterator[Ctx]:
        """A read-only request's transaction: no lock, a snapshot of what is committed.

        When something has fallen due by the clock it is a write transaction instead (the sweep
        must run first). Writing in it is a bug: it is rolled back and raised.
        """
        now = self.clock.now()
        if now >= self._next_due:
            with self.transaction() as ctx:
                yield ctx
            return
        with self.read_engine.connect() as conn, conn.begin():  # a plain BEGIN
            sqlite = conn.connection.driver_connection
            assert sqlite is not None
            changes = sqlite.total_changes
            ctx = self._ctx(conn, now)
            yield ctx
            if sqlite.total_changes != changes or ctx.queued:
                raise RuntimeError("a read-only request of the local MTurk service wrote")

    def _ctx(self, conn: Connection, now: float) -> Ctx:
        return Ctx(conn=conn, now=now, sqs_endpoint=self.sender.endpoint_url)

    def save_clock(self) -> None:
        with self.lock, self.engine.begin() as conn:
            set_meta(conn, "clock", json.dumps(self.clock.saved()))

    def deliver(self) -> int:
        """Send pending notifications; while one thread sends, others leave it a note to go on.

        A thread that finds the sender busy sets the note before giving up, and the sending
        thread reads the note after it lets go, so no message waits for a later request.
        """
        if not self._outbox_dirty:
            return 0
        self._more_to_deliver = True
        sent = 0
        while self._more_to_deliver and self._delivering.acquire(blocking=False):
            try:
                self._more_to_deliver = False
                self._outbox_dirty = False  # set again by any request that queues meanwhile
                went, failed = deliver_pending(self.engine, self.sender, self.lock)
                sent += went
                if failed:
                    self._outbox_dirty = True  # retried after the next request
            finally:
                self._delivering.release()
        return sent

    def deliver_now(self) -> int:
        """Send whatever the outbox holds (the control endpoint's forced delivery)."""
        self._outbox_dirty = True
        return self.deliver()

    def close(self) -> None:
        self.engine.dispose()


def current_service() -> Service:
    service = current_app.extensions["mturk_local"]
    assert isinstance(service, Service)
    return service
