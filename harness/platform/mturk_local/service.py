"""The running service: database, clock, fault switches, notification sender, one lock.

Requests are handled one at a time (a lock around each transaction), which is what a local,
single-requester service needs and keeps SQLite free of write conflicts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app

from harness.platform.mturk_local import lifecycle
from harness.platform.mturk_local.clock import Clock
from harness.platform.mturk_local.faults import FaultSwitches
from harness.platform.mturk_local.notifications import SqsSender, deliver_pending
from harness.platform.mturk_local.settings import Settings
from harness.platform.mturk_local.state import Ctx, get_meta, init_balance, open_engine, set_meta


class Service:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = open_engine(settings.db_path)
        self.lock = threading.RLock()
        self.faults = FaultSwitches(seed=settings.fault_seed)
        self.sender = SqsSender(settings.sqs_endpoint_url)
        with self.engine.begin() as conn:
            init_balance(conn, settings.starting_balance)
            saved = get_meta(conn, "clock")
        self.clock = Clock(**json.loads(saved)) if saved else Clock()

    @contextmanager
    def transaction(self, host_url: str = "http://127.0.0.1/") -> Iterator[Ctx]:
        """One request's transaction, with the state first brought up to the clock's time."""
        with self.lock, self.engine.begin() as conn:
            ctx = Ctx(conn=conn, now=self.clock.now(), host_url=host_url)
            lifecycle.sweep(ctx)
            yield ctx

    def save_clock(self) -> None:
        with self.lock, self.engine.begin() as conn:
            set_meta(
                conn,
                "clock",
                json.dumps({"offset": self.clock.offset, "frozen_at": self.clock.frozen_at}),
            )

    def deliver(self) -> int:
        with self.lock:
            return deliver_pending(self.engine, self.sender)

    def close(self) -> None:
        self.engine.dispose()


def current_service() -> Service:
    service = current_app.extensions["mturk_local"]
    assert isinstance(service, Service)
    return service
