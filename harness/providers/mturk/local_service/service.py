"""The running service: database, clock, fault switches, notification sender, locks.

Requests are served by several threads (gunicorn's threaded worker). Each request's
transaction runs under one lock, one at a time: SQLite lets one writer in at a time anyway
(BEGIN IMMEDIATE, which also keeps a second process on the same file out), and a lock queues
them without SQLite's busy-wait polling; a unique index allows one live assignment per worker
and HIT all the same. Every transaction first sweeps: it
applies the deadlines, auto-approvals and expiries the clock has made due. Work outside a
transaction (added latency, sending notifications) runs concurrently.

Notifications are sent by a thread of its own, never on a request's path: a transaction that
queued one wakes it; it sends what is due (new messages, and retries whose time has come),
looks again every `RETRY_POLL` seconds while a retry is waiting, and sleeps until woken when
nothing is. So a queue that cannot be reached never slows a request.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app

from harness.providers.mturk.local_service import lifecycle
from harness.providers.mturk.local_service.clock import Clock, ClockError
from harness.providers.mturk.local_service.faults import FaultSwitches
from harness.providers.mturk.local_service.notifications import (
    SqsSender,
    deliver_pending,
    has_waiting,
)
from harness.providers.mturk.local_service.settings import Settings
from harness.providers.mturk.local_service.state import (
    Ctx,
    get_meta,
    init_balance,
    open_engine,
    set_meta,
)

log = logging.getLogger(__name__)
RETRY_POLL = 0.5
"""Seconds between the delivery thread's looks for retries fallen due."""


class Service:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = open_engine(settings.db_path)
        self.lock = threading.RLock()
        self._sending = threading.Lock()  # one sender at a time (the thread, a forced delivery)
        self._news = threading.Event()  # a transaction queued a notification
        self._closing = threading.Event()
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
        self._delivery = threading.Thread(
            target=self._deliver, name="mturk-local-notifications", daemon=True
        )
        self._delivery.start()  # it sends what an earlier run of the service left

    @contextmanager
    def transaction(self) -> Iterator[Ctx]:
        """One request's transaction, with the state first brought up to the clock's time.

        Only the transaction itself runs under the lock: the connection is taken from the pool
        before and given back after.
        """
        with self.engine.connect() as conn, self.lock:
            with conn.begin():  # BEGIN IMMEDIATE (`state.open_engine`)
                ctx = Ctx(conn=conn, now=self.clock.now(), sqs_endpoint=self.sender.endpoint_url)
                lifecycle.sweep(ctx)
                yield ctx
            if ctx.queued:  # committed
                self._news.set()

    def save_clock(self) -> None:
        with self.lock, self.engine.begin() as conn:
            set_meta(conn, "clock", json.dumps(self.clock.saved()))

    def deliver_now(self) -> int:
        """Try every notification not delivered and not given up, now (the control
        endpoint's forced delivery); how many went out."""
        with self._sending:
            return deliver_pending(
                self.engine, self.sender, self.lock, self.clock.now(), due_only=False
            )

    def _deliver(self) -> None:
        """Send what is due; look again when woken, or after `RETRY_POLL` seconds while a
        message waits for its retry."""
        while not self._closing.is_set():
            self._news.clear()
            try:
                with self._sending:
                    deliver_pending(self.engine, self.sender, self.lock, self.clock.now())
                waiting = has_waiting(self.engine)
            except Exception:  # the thread must not die with messages left: log, go on
                log.exception("delivering notifications failed; trying again")
                waiting = True
            self._news.wait(RETRY_POLL if waiting else None)

    def close(self) -> None:
        self._closing.set()
        self._news.set()  # no wait for the next look
        self._delivery.join(timeout=30)
        self.engine.dispose()


def current_service() -> Service:
    service = current_app.extensions["mturk_local"]
    assert isinstance(service, Service)
    return service
