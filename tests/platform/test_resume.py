"""Crash and resume: the launch process is killed (SIGKILL, a real process) after k of n HITs,
at different moments, then the same command is run again: exactly n HITs exist."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
import sqlalchemy as sa

from harness.store import make_engine
from tests.factories import PROJECT_ROOT, checkout_env
from tests.platform.factories import harness_cli, hits_on_platform, launch_args, small_spec

N_HITS = 10


def launch_command(spec, mturk, db):
    return [sys.executable, "-m", "harness", *launch_args(spec, mturk.url, db)]


def wait_for(engine, query, at_least, process, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with engine.connect() as connection:
                if connection.execute(sa.text(query)).scalar_one() >= at_least:
                    return
        except sa.exc.OperationalError:
            pass  # the store is not created yet
        assert process.poll() is None, "the launch finished before it could be killed"
        time.sleep(0.01)
    raise AssertionError(f"{query} never reached {at_least}")


POSTED = "SELECT count(*) FROM hit WHERE platform_hit_id IS NOT NULL"
INTENTS = "SELECT count(*) FROM event WHERE kind = 'hit.create.intent'"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("moment", "query", "k", "days_later"),
    [
        ("after 3 HITs were recorded", POSTED, 3, 0),
        ("while the 4th CreateHIT is in flight", INTENTS, 4, 0),
        ("in flight, resumed after the platform forgot the tokens", INTENTS, 6, 1.1),
    ],
)
def test_a_killed_launch_resumes_to_exactly_n_hits(
    tmp_path, mturk, client, moment, query, k, days_later
):
    spec = small_spec(tmp_path, items=2 * N_HITS, per_hit=2)
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    mturk.control("faults", {"latency_ms": 150})  # each call takes a while: room to kill
    env = checkout_env()
    process = subprocess.Popen(
        launch_command(spec, mturk, db),
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    engine = make_engine(db)
    try:
        wait_for(engine, query, k, process)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert process.returncode == -signal.SIGKILL
        with engine.connect() as connection:
            posted_before = connection.execute(sa.text(POSTED)).scalar_one()
    finally:
        engine.dispose()
    assert k - 1 <= posted_before < N_HITS
    time.sleep(0.5)  # let the service finish a request the dead process had sent
    on_platform = len(hits_on_platform(client))
    assert posted_before <= on_platform < N_HITS
    if query == INTENTS:  # killed mid-call: the HIT may exist without the store knowing it
        assert on_platform in (posted_before, posted_before + 1)

    mturk.control("faults", {"latency_ms": 0})
    if days_later:
        mturk.advance(days_later * 86400)
    resumed = harness_cli(*launch_command(spec, mturk, db)[3:])
    assert resumed.exit_code == 0, resumed.output
    hits = hits_on_platform(client)
    labels = Counter(h["RequesterAnnotation"] for h in hits)
    assert len(hits) == N_HITS, moment
    assert all(count == 1 for count in labels.values())
    engine = make_engine(db)
    try:
        with engine.connect() as connection:
            ids = connection.execute(sa.text("SELECT platform_hit_id FROM hit")).scalars().all()
    finally:
        engine.dispose()
    assert sorted(ids) == sorted(h["HITId"] for h in hits)


@pytest.mark.parametrize("days_later", [0, 1.1])
def test_a_hit_created_but_never_recorded_is_found_not_posted_again(
    tmp_path, mturk, client, days_later
):
    """The worst moment: the platform created HIT k, the process died before recording it."""
    from harness.platform.launch_plan import hit_label

    spec = small_spec(tmp_path, items=2 * N_HITS, per_hit=2)
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    first = harness_cli(*launch_command(spec, mturk, db)[3:])
    assert first.exit_code == 0, first.output
    engine = make_engine(db)
    try:  # forget HIT 4 in the store, as if the process died right after creating it
        with engine.begin() as connection:
            connection.execute(sa.text('UPDATE hit SET platform_hit_id = NULL WHERE "index" = 4'))
            launch_id = connection.execute(
                sa.text("SELECT launch_id FROM study_platform")
            ).scalar_one()
    finally:
        engine.dispose()
    hit4 = next(
        h
        for h in hits_on_platform(client)
        if h["RequesterAnnotation"] == hit_label("small", launch_id, 4)
    )
    if days_later:
        mturk.advance(days_later * 86400)
    resumed = harness_cli(*launch_command(spec, mturk, db)[3:])
    assert resumed.exit_code == 0, resumed.output
    assert "0 posted now, 1 found again, 9 posted before" in resumed.output
    assert len(hits_on_platform(client)) == N_HITS
    engine = make_engine(db)
    try:
        with engine.connect() as connection:
            found = connection.execute(
                sa.text('SELECT platform_hit_id FROM hit WHERE "index" = 4')
            ).scalar_one()
    finally:
        engine.dispose()
    assert found == hit4["HITId"]
