"""Whose claim is it, and is it abandoned: a process on this machine is looked up in the
system's process table (a killed one is gone at once, even before its parent reaps it), a
process on another machine by its lease, this process by what its threads hold, a claim
without a holder by its age."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from harness.clock import utcnow
from harness.store import make_engine
from harness.store.models import ProcessLease
from harness.store.owners import (
    CLAIM_TIMEOUT,
    LEASE,
    abandoned,
    hold,
    holder,
    new_claim,
    release,
    renew_lease,
    this_process,
)

ELSEWHERE = "other-host/0f0f0f0f-0000-0000-0000-000000000000:4026531836/4242/123456"


@pytest.fixture
def session(database_url):
    engine = make_engine(database_url)
    with Session(engine) as session:
        yield session
    engine.dispose()


def claim_of(process: subprocess.Popen[bytes]) -> str:
    """A claim as the process ``process`` (on this machine) would record it."""
    mine = this_process()
    machine = mine.rsplit("/", 2)[0]
    with open(f"/proc/{process.pid}/stat") as stat:
        start = stat.read().rsplit(")", 1)[1].split()[19]
    return f"{machine}/{process.pid}/{start}#0000"


def test_a_claim_names_this_process_and_a_nonce():
    first, second = new_claim(), new_claim()
    assert holder(first) == holder(second) == this_process() != first != second
    assert this_process().rsplit("/", 2)[1] == str(os.getpid())


def test_a_killed_process_on_this_machine_is_gone_at_once(session):
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        claim = claim_of(process)
        assert not abandoned(session, claim, utcnow())
        os.kill(process.pid, signal.SIGKILL)
        deadline = time.monotonic() + 120  # killed, not reaped yet: a zombie holds nothing
        while True:
            with open(f"/proc/{process.pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            assert time.monotonic() < deadline, "the killed process never became a zombie"
            time.sleep(0.01)
        assert abandoned(session, claim, utcnow())
    finally:
        process.kill()
        process.wait()
    assert abandoned(session, claim, utcnow())  # reaped
    # another process given the same id later is not the holder: its start time differs
    reused = claim.rsplit("/", 1)[0] + "/1#0000"
    assert abandoned(session, reused, utcnow())


def test_this_process_holds_a_claim_only_while_a_thread_holds_it(session):
    claim = new_claim()
    assert abandoned(session, claim, utcnow())  # recorded, then not held: its result was lost
    hold(session.get_bind().engine, claim)
    try:
        assert not abandoned(session, claim, utcnow())
    finally:
        release(claim)
    assert abandoned(session, claim, utcnow())


def test_a_process_on_another_machine_is_gone_when_its_lease_runs_out(session):
    claim = ELSEWHERE + "#abcd"
    taken = utcnow() - LEASE * 3
    assert abandoned(session, claim, taken)  # no lease, and the claim is old
    assert not abandoned(session, claim, utcnow())  # a fresh claim counts as a renewal
    renew_lease(session.get_bind().engine, holder(claim))
    assert not abandoned(session, claim, taken)  # renewed now
    later = utcnow() + LEASE + timedelta(seconds=1)
    assert abandoned(session, claim, taken, now=later)  # not renewed since


def test_leases_not_renewed_for_a_day_are_forgotten(session):
    engine = session.get_bind().engine
    with engine.begin() as connection:
        connection.execute(
            sa.insert(ProcessLease.__table__).values(  # type: ignore[attr-defined]
                owner=ELSEWHERE, renewed_at=utcnow() - timedelta(days=2)
            )
        )
    renew_lease(engine)
    owners = session.exec(select(ProcessLease.owner)).all()
    assert owners == [this_process()]


def test_a_claim_without_a_holder_is_abandoned_after_the_timeout(session):
    assert not abandoned(session, None, utcnow())
    assert abandoned(session, None, utcnow() - CLAIM_TIMEOUT - timedelta(seconds=1))
    # even a live holder's claim ends at the timeout (its result could not be written)
    assert abandoned(session, ELSEWHERE + "#1", utcnow() - CLAIM_TIMEOUT - timedelta(seconds=1))
