"""CPU accounting for scripts/load_test.py: CPU seconds of each part of the load test (the task
server, the local MTurk service, the simulated crowd, PostgreSQL's backends serving the test's
database) over the crowd's run, read from /proc, and pinning parts to CPUs.

Why CPU and not wall time: the parts share the machine's cores (with whatever else runs), so
wall-clock rates move with the machine's load while CPU milliseconds per assignment do not;
the task server's capacity (assignments per second of its CPU) is what it would do with the
machine to itself.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def own_seconds(pid: int) -> float:
    """CPU time (user + system) of one process, its exited children not included."""
    try:
        return sum(int(f) for f in _stat(pid)[11:13]) / TICK  # utime stime
    except (OSError, IndexError, ValueError):
        return 0.0


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and its children, living or waited for."""
    total = 0.0
    try:
        total += sum(int(f) for f in _stat(pid)[11:15]) / TICK  # utime stime cutime cstime
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(cpu_seconds(int(c)) for c in children)


class BackendCpu:
    """CPU seconds spent by the PostgreSQL backends of one database while it runs.

    A thread asks pg_stat_activity for the database's backends every ``every`` seconds and
    reads each one's CPU from /proc (this must run on the database's machine, with the right
    to read its processes); a backend's CPU counts from when it was first seen (from its
    start if it started meanwhile) to the last reading, so a backend that ends between two
    readings loses at most ``every`` seconds of its work. None when /proc cannot be read.
    """

    def __init__(self, admin_url: str, database: str, every: float = 0.25) -> None:
        self.admin_url, self.database, self.every = admin_url, database, every
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._readable = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._started = False

    def _pids(self, conn: sa.Connection) -> list[int]:
        return [
            int(r[0])
            for r in conn.execute(
                sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :name"),
                {"name": self.database},
            )
        ]

    def _read(self, conn: sa.Connection) -> None:
        for pid in self._pids(conn):
            try:
                seconds = sum(int(f) for f in _stat(pid)[11:13]) / TICK
            except PermissionError:
                self._readable = False
                return
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            self._first.setdefault(pid, 0.0 if self._started else seconds)
            self._last[pid] = seconds

    def _poll(self) -> None:
        engine = sa.create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                self._read(conn)
                self._started = True
                self._ready.set()
                while not self._stop.wait(self.every):
                    self._read(conn)
                self._read(conn)
        finally:
            self._ready.set()
            engine.dispose()

    def start(self) -> BackendCpu:
        self._ready = threading.Event()
        self._thread.start()
        self._ready.wait(10)
        return self

    def seconds(self) -> float | None:
        """The backends' CPU seconds since `start`, as of the last reading (None if
        unreadable)."""
        if not self._readable:
            return None
        last, first = dict(self._last), dict(self._first)
        return sum(last[pid] - start for pid, start in first.items() if pid in last)

    def stop(self) -> float | None:
        """Stop reading; the backends' CPU seconds since `start` (None if unreadable)."""
        self._stop.set()
        self._thread.join(10)
        return self.seconds()


def measure(parts: dict[str, Callable[[], float]]) -> Callable[[], dict[str, float]]:
    """Read every part's CPU seconds now; the returned function gives each part's CPU since."""
    before = {name: read() for name, read in parts.items()}
    return lambda: {name: read() - before[name] for name, read in parts.items()}


def crowd_seconds() -> float:
    """This process's CPU (the simulated crowd and the load test's own bookkeeping)."""
    return time.process_time()


def pin(cpu: int) -> Callable[[], None]:
    """A `preexec_fn` that runs a child (and everything it forks) on one CPU."""
    return lambda: os.sched_setaffinity(0, {cpu})


def check_pinnable() -> str | None:
    """Why --pin cannot work here (fewer than 2 CPUs usable), or None."""
    usable = os.sched_getaffinity(0)
    if not {0, 1} <= usable:
        return f"--pin needs CPUs 0 and 1; this process may use {sorted(usable)}"
    return None
