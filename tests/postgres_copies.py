"""PostgreSQL databases for tests, made and dropped beside the tests instead of in their way.

Copying the migrated template (CREATE DATABASE ... TEMPLATE) and dropping a test's database
each wait on the server's disk (fsync) for a good part of a second on a busy machine: done in
a test's setup and teardown, that waiting is most of a short PostgreSQL test. Here one
background thread per test process makes the next copy of a template while a test runs (each
test still gets a fresh copy nobody else has used) and drops finished databases after the
test has ended; `finish()` at the session's end drops the copies made but never handed out
and waits for every drop."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from tests.factories import create_postgres_database, drop_postgres_database

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="postgres-copies")
_NEXT: dict[str, Future[str]] = {}  # per template URL, the copy being made for the next test
_DROPS: list[Future[None]] = []
_LOCK = threading.Lock()


def fresh_copy(template: str) -> str:
    """A new database copied from ``template`` (a URL nobody connects to), for one test: the
    copy made in the background since the last call when there is one; the next is started."""
    with _LOCK:
        ready = _NEXT.pop(template, None)
        _NEXT[template] = _WORKER.submit(create_postgres_database, template)
    return ready.result() if ready is not None else create_postgres_database(template)


def drop_later(url: str) -> None:
    """Drop the database at ``url`` in the background (WITH (FORCE): connections left open
    are closed)."""
    with _LOCK:
        _DROPS.append(_WORKER.submit(drop_postgres_database, url))


def finish() -> None:
    """Drop the copies made ahead and never used, and wait for every drop (re-raising the first
    that failed)."""
    with _LOCK:
        unused = list(_NEXT.values())
        _NEXT.clear()
    for copy in unused:
        drop_later(copy.result())
    with _LOCK:
        drops = list(_DROPS)
        _DROPS.clear()
    for drop in drops:
        drop.result()
