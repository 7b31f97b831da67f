"""Who holds a claim, and whether they still can: a claim of a dead process is taken over at
once, not after a timeout.

A claim (a screening decision being carried out, `harness.store.decisions`; an action's intent,
`harness.store.action_claims`) names its holder with `new_claim`: this process (machine,
process id, when it started) and a nonce. Whether a claim is abandoned (`abandoned`):

- held by this process: while a thread here holds it (`hold` ... `release`); a claim this
  process took and no longer holds (its result could not be written) is abandoned;
- held by another process on this machine: while a process with that id and start time runs
  (the system's process table: exact and immediate, so a killed process's claim is taken over
  the moment it is found);
- held by a process on another machine: while its lease is fresh. A process holding a claim
  renews its lease (`ProcessLease`) every `RENEW` seconds from a thread; a claim whose holder's
  lease and claim are both older than `LEASE` is abandoned;
- a claim without a holder (made before holders were recorded), and any claim older than
  `CLAIM_TIMEOUT`: abandoned after that timeout, as before.

"This machine" is the host name, its boot and its process namespace together, so two containers
or a rebooted machine never mistake each other's process ids.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from datetime import UTC, datetime, timedelta
from importlib import import_module
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, col, select

from harness.clock import utcnow
from harness.store.models import ProcessLease, aware

LOG = logging.getLogger(__name__)

CLAIM_TIMEOUT = timedelta(minutes=10)
"""How long any claim protects its work, whoever holds it; longer than any platform action."""
LEASE = timedelta(seconds=30)
"""A process on another machine whose lease and claim are older than this is gone."""
RENEW = 5.0
"""Seconds between two renewals of a lease while its process holds a claim."""
FORGET = timedelta(days=1)
"""Leases not renewed for this long are deleted when a lease is renewed."""


def _proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def _machine() -> str:
    """This machine as processes on it see it: host name, boot, process namespace."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = "-"
    try:
        space = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        space = "-"
    return f"{socket.gethostname()}/{boot}:{space}"


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot), or None when it is not running
    (or has exited and awaits its parent) or the system does not say."""
    fields = _proc_stat(pid)
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return fields[19]  # starttime: field 22 of stat, the 20th after the name


_ME: tuple[int, str] | None = None  # (pid, owner), recomputed after a fork


def this_process() -> str:
    """This process as a claim's holder: ``<machine>/<pid>/<start>``."""
    global _ME
    pid = os.getpid()
    if _ME is None or _ME[0] != pid:
        _ME = (pid, f"{_machine()}/{pid}/{_started(pid) or '-'}")
    return _ME[1]


def new_claim() -> str:
    """A claim for this process to record on what it takes: ``<process>#<nonce>``."""
    return f"{this_process()}#{secrets.token_hex(4)}"


def holder(claim: str) -> str:
    """The process part of a claim."""
    return claim.split("#", 1)[0]


def abandoned(
    session: Session, claim: str | None, since: datetime, now: datetime | None = None
) -> bool:
    """Whether the claim taken at ``since`` is abandoned (see the module docstring)."""
    now = now or utcnow()
    since = since if since.tzinfo is not None else since.replace(tzinfo=UTC)
    if since < now - CLAIM_TIMEOUT:
        return True
    if claim is None:
        return False
    process = holder(claim)
    if process == this_process():
        return not _HOLDS.holding(claim)
    machine, _, start = process.rpartition("/")
    machine, _, pid = machine.rpartition("/")
    if machine == _machine() and start != "-":
        return not pid.isdigit() or _started(int(pid)) != start
    renewed = session.exec(
        select(ProcessLease.renewed_at).where(ProcessLease.owner == process)
    ).first()
    fresh = max(since, aware(renewed) if renewed is not None else since)
    return fresh < now - LEASE


def hold(engine: sa.Engine, claim: str) -> None:
    """This process holds ``claim`` (recorded in ``engine``'s store) until `release`: its
    lease there is renewed meanwhile."""
    _HOLDS.hold(engine, claim)


def release(claim: str) -> None:
    """This process no longer holds ``claim``."""
    _HOLDS.release(claim)


def renew_lease(engine: sa.Engine, process: str | None = None) -> None:
    """Record that ``process`` (default: this one) is alive now, and forget leases not
    renewed for `FORGET`."""
    owner = process or this_process()
    now = utcnow()
    table = ProcessLease.__table__  # type: ignore[attr-defined]
    dialect = import_module(f"sqlalchemy.dialects.{engine.dialect.name}")
    upsert = (
        dialect.insert(table)
        .values(owner=owner, renewed_at=now)
        .on_conflict_do_update(index_elements=["owner"], set_={"renewed_at": now})
    )
    with engine.begin() as connection:
        connection.execute(upsert)
        connection.execute(sa.delete(table).where(col(ProcessLease.renewed_at) < now - FORGET))


class _Holds:
    """The claims this process holds, and the thread renewing its leases while it holds any."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._held: dict[str, sa.Engine] = {}
        self._thread: threading.Thread | None = None

    def holding(self, claim: str) -> bool:
        with self._lock:
            return claim in self._held

    def hold(self, engine: sa.Engine, claim: str) -> None:
        with self._lock:
            self._held[claim] = engine
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._renew, name="harness-lease", daemon=True
                )
                self._thread.start()

    def release(self, claim: str) -> None:
        with self._lock:
            self._held.pop(claim, None)
            if not self._held:
                self._lock.notify_all()

    def _renew(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: not self._held, timeout=RENEW)
                if not self._held:
                    self._thread = None
                    return
                engines = {str(e.url): e for e in self._held.values()}
            for engine in engines.values():
                try:
                    renew_lease(engine)
                except Exception:  # noqa: BLE001 - a missed renewal costs nothing while the claim is young
                    LOG.warning("could not renew this process's lease", exc_info=True)

    def after_fork(self) -> None:
        """A forked child holds nothing and runs no thread (the parent's are not its own)."""
        self._lock = threading.Condition()
        self._held = {}
        self._thread = None


_HOLDS = _Holds()
os.register_at_fork(after_in_child=_HOLDS.after_fork)
