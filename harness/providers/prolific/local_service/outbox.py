"""The local Prolific service's hook deliveries: queued with each submission status change,
posted in order by one background thread, signed as Prolific signs them.

`notify` runs inside the transaction that changes a submission's status, so an event is queued
exactly when the change is committed. `Deliveries` posts each subscription's events in order
(a failed one holds back the later ones) to its target (loopback only) with
``X-Prolific-Request-Signature`` (base64 HMAC-SHA256 of timestamp + body, keyed with the
workspace's secret) and
``X-Prolific-Request-Timestamp`` (real seconds, not the service's movable clock); an answer other
than 2xx is retried with a growing delay, at most `ATTEMPTS` times.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field

import requests

from harness.providers.prolific.hooks import (
    SIGNATURE,
    SUBMISSION_EVENT,
    TIMESTAMP,
    loopback,
    signature,
)
from harness.providers.prolific.local_service.state import Store, new_id

ATTEMPTS = 8
"""Deliveries of one event before it is given up (polling still finds the change)."""


def workspace_secret(db: sqlite3.Connection, workspace: str) -> dict[str, str] | None:
    """The workspace's hook secret (``id``, ``value``, ``workspace_id``), if one was made."""
    found = db.execute("SELECT value FROM meta WHERE key = ?", (f"hook_secret:{workspace}",))
    row = found.fetchone()
    return None if row is None else dict(json.loads(row[0]))


def notify(store: Store, db: sqlite3.Connection, submission_id: str) -> None:
    """Queue a ``submission.status.change`` of the submission (its status now) for every
    confirmed, enabled subscription; call inside the transaction that changed it."""
    row = db.execute(
        "SELECT participant_id, status FROM submission WHERE id = ?", (submission_id,)
    ).fetchone()
    if row is None:
        return
    body = json.dumps(
        {
            "resource_id": submission_id,
            "event_type": SUBMISSION_EVENT,
            "participant_id": row["participant_id"],
            "status": row["status"],
        }
    )
    hooks = db.execute(
        "SELECT id FROM hook_subscription WHERE event_type = ? AND enabled = 1 "
        "AND confirmed = 1 ORDER BY seq",
        (SUBMISSION_EVENT,),
    ).fetchall()
    for (hook_id,) in hooks:
        db.execute(
            "INSERT INTO hook_delivery (subscription_id, event_id, body, due) VALUES (?, ?, ?, ?)",
            (hook_id, new_id(), body, time.time()),
        )
    if hooks and store.deliveries is not None:
        store.deliveries.wake()


@dataclass
class Deliveries:
    """One thread posting queued events in order; started on first `wake`, ended by `stop`."""

    store: Store
    _wake: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wake(self) -> None:
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name="prolific-local-hooks"
                )
                self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._lock:
            thread = self._thread
        # a delivery under way ends within its timeouts (2 + 10 s), longer on a loaded
        # machine; the store is closed after this, so it is waited for generously
        if thread is not None:
            thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=0.5)
            self._wake.clear()
            while not self._stop.is_set() and self._deliver_one():
                pass

    def _deliver_one(self) -> bool:
        """Post the next due event (outside the store's lock); whether there was one."""
        with self.store.tx() as db:
            row = db.execute(
                "SELECT d.*, s.target_url, s.workspace_id FROM hook_delivery d JOIN "
                "hook_subscription s ON s.id = d.subscription_id WHERE d.id IN (SELECT MIN(id) "
                "FROM hook_delivery GROUP BY subscription_id) AND d.due <= ? ORDER BY d.id LIMIT 1",
                (time.time(),),
            ).fetchone()  # each subscription's oldest event first: in order, even after a retry
            if row is None:
                return False
            secret = workspace_secret(db, row["workspace_id"])
        ok = secret is not None and loopback(row["target_url"]) and _post(row, secret["value"])
        with self.store.tx() as db:
            if ok or row["attempts"] + 1 >= ATTEMPTS:
                db.execute("DELETE FROM hook_delivery WHERE id = ?", (row["id"],))
            else:
                db.execute(
                    "UPDATE hook_delivery SET attempts = attempts + 1, due = ? WHERE id = ?",
                    (time.time() + min(30.0, 0.2 * 2 ** row["attempts"]), row["id"]),
                )
        return True


def _post(row: sqlite3.Row, secret: str) -> bool:
    stamp = str(int(time.time()))
    body = row["body"].encode()
    try:
        answer = requests.post(
            row["target_url"],
            data=body,
            timeout=(2, 10),
            headers={
                "Content-Type": "application/json",
                "X-Event-ID": row["event_id"],
                TIMESTAMP: stamp,
                SIGNATURE: signature(secret, stamp, body),
            },
        )
    except requests.RequestException:
        return False
    return 200 <= answer.status_code < 300
