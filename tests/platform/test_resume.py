"""Crash and resume: the launch process is killed (SIGKILL, a real process) after k of n HITs,
at different moments, then the same command is run again: exactly n HITs exist. The moment
is the service holding a request while the process is killed, not a guess at how long the
process takes."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter

import pytest
import sqlalchemy as sa

from harness.store import make_engine
from tests.factories import PROJECT_ROOT, checkout_env
from tests.platform.factories import harness_cli, hits_on_platform, launch_args, small_spec

N_HITS = 10


def launch_command(spec, mturk, db):
    return [sys.executable, "-m", "harness", *launch_args(spec, mturk.url, db)]


POSTED = "SELECT count(*) FROM hit WHERE platform_hit_id IS NOT NULL"
INTENTS = "SELECT count(*) FROM event WHERE kind = 'hit.create.intent'"


def is_create_hit(environ) -> bool:
    return str(environ.get("HTTP_X_AMZ_TARGET", "")).endswith(".CreateHITWithHITType")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("moment", "k", "reaches", "days_later"),
    [
        ("after 3 HITs were recorded, the 4th CreateHIT never arriving", 4, False, 0),
        ("while the 4th CreateHIT is in flight", 4, True, 0),
        ("in flight, resumed after the platform forgot the tokens", 6, True, 1.1),
    ],
)
def test_a_killed_launch_resumes_to_exactly_n_hits(
    tmp_path, mturk, client, moment, k, reaches, days_later
):
    """The service holds the k-th CreateHIT (the launch's intent for it recorded, HITs 1 to
    k-1 posted and recorded) while the process is killed, then lets it through (``reaches``:
    the platform makes the HIT the store never hears of) or drops it: the same moment on a
    quiet machine and on a loaded one."""
    spec = small_spec(tmp_path, items=2 * N_HITS, per_hit=2)
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    held = mturk.served.hold(is_create_hit, nth=k)
    env = checkout_env()
    process = subprocess.Popen(
        launch_command(spec, mturk, db),
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    held.kill_sender(process)
    assert process.returncode == -signal.SIGKILL
    held.release(drop=not reaches)  # answered (to nobody) before anything else is asked
    engine = make_engine(db)
    try:
        with engine.connect() as connection:
            posted_before = connection.execute(sa.text(POSTED)).scalar_one()
            intents = connection.execute(sa.text(INTENTS)).scalar_one()
    finally:
        engine.dispose()
    assert (posted_before, intents) == (k - 1, k)
    on_platform = len(hits_on_platform(client))
    assert on_platform == posted_before + reaches  # in flight: the store does not know it

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
