"""A study with arms on MTurk done by a simulated crowd through the local service and the task
server, then synced, reviewed, reported, compared and expired through the real CLI (issue #18):
every item reaches the raters per item in every arm, every worker stays in one arm, and the
money is each arm's own reward."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec.arms import load_arms
from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_tables import WorkerArm
from harness.store.models import Assignment
from tests.platform.factories import (
    WORKER_PROFILE,
    crowd_workers,
    harness_cli,
    hits_on_platform,
    launch_args,
    small_spec,
    truths_of,
    until_verified,
)
from tests.serving import ServedApp, until_rechecked

ARMS = {
    "arms": "\n  long: {}\n  short:\n    guidelines: {text: Similar words score high.}"
    "\n    hit: {reward: '0.20'}",
}


def _launch(tmp_path, mturk, tasks, database_url, hosting="external"):
    spec = small_spec(tmp_path, items=8, raters=3, hosting=hosting, **ARMS)
    extra = ("--public-url", tasks.url) if tasks is not None else ()
    result = harness_cli(*launch_args(spec, mturk.url, database_url, *extra))
    assert result.exit_code == 0, result.output
    return spec


@pytest.fixture
def screening_tasks(database_url):
    """The task server with live screening after each submission, as `harness serve` runs it."""
    from harness.platform.submissions.after_submission import hook
    from harness.web import create_app

    app = create_app(database_url, after_submission=hook(True))
    with ServedApp(app) as served:
        yield served
    app.extensions["harness"].close()


@pytest.mark.slow
def test_a_crowd_fills_every_arm_and_sync_review_status_compare_and_expire_see_the_arms(
    tmp_path, mturk, client, screening_tasks, database_url, http
):
    spec = _launch(tmp_path, mturk, screening_tasks, database_url)
    base = load_arms(spec).arms[0].loaded
    driver = SimulatedWorkers(
        mturk.url,
        crowd_workers(base, size=10),
        truths_of(base),
        base.scale,
        http,
        profile=WORKER_PROFILE,
        keep_group=True,
    )
    report = driver.run()
    assert report.refused == []
    assert len(report.submitted) == 24  # 8 HITs (4 per arm) x 3 raters
    assert until_verified(database_url) == 0
    until_rechecked(screening_tasks.app)  # a recheck stores, then screens
    engine = make_engine(database_url)
    with session_scope(engine) as session:  # screened live, as each submission was verified
        unscreened = session.exec(select(Assignment).where(Assignment.screened_at.is_(None))).all()
    engine.dispose()
    assert unscreened == []

    synced = harness_cli("sync", "small", "--db", database_url)
    assert synced.exit_code == 0, synced.output
    assert "8 HITs, 24 submitted assignments; 0 stored now" in synced.output
    assert "out-of-arm" not in synced.output  # the task server told MTurk every arm already
    reviewed = harness_cli("review", "small", "--db", database_url)
    assert reviewed.exit_code == 0, reviewed.output
    assert "approve 24" in reviewed.output
    status = harness_cli("status", "small", "--db", database_url)
    assert status.exit_code == 0, status.output
    assert "raters per item (target 3): min 3, median 3, max 3; 16 of 16 items at target" in (
        status.output
    )  # 8 items x 2 arms
    assert "arms: long 4 HITs, " in status.output and ", short 4 HITs, " in status.output
    # each arm at its reward: 12 x ($0.10 + $0.02) + 12 x ($0.20 + $0.04), all approved
    assert "money: committed $4.32, spent $4.32" in status.output

    engine = make_engine(database_url)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
        rows = session.exec(select(WorkerArm)).all()
    engine.dispose()
    assert table.groupby("worker_id")["instrument_hash"].nunique().max() == 1
    assert all(r.joined_at is not None for r in rows)
    assert len(report.by_worker) <= len(rows)  # everyone who arrived has an arm, used or not

    compared = harness_cli("compare-arms", "small", "--db", database_url, "--bootstrap", "50")
    assert compared.exit_code == 0, compared.output
    assert compared.output.startswith("study small: 2 arms, interval alpha, 8 items compared")
    assert "against long (the base):" in compared.output

    expired = harness_cli("expire", "small", "--db", database_url)
    assert expired.exit_code == 0, expired.output
    states = {h["HITStatus"] for h in hits_on_platform(client)}
    assert states <= {"Reviewable", "Disposed"}


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_simulate_workers_does_a_study_with_arms_on_mturk_and_compare_arms_reads_it(
    tmp_path, mturk, tasks, database_url
):
    _launch(tmp_path, mturk, tasks, database_url)
    crowd = harness_cli(
        "simulate-workers",
        "small",
        "--db",
        database_url,
        "--size",
        "10",
        "--mix",
        "careful=1.0",
        "--seed",
        "3",
    )
    assert crowd.exit_code == 0, crowd.output
    assert "small: 24 assignments submitted by " in crowd.output
    assert until_verified(database_url) == 0
    synced = harness_cli("sync", "small", "--db", database_url)
    assert synced.exit_code == 0, synced.output
    status = harness_cli("status", "small", "--db", database_url)
    assert "16 of 16 items at target" in status.output
    compared = harness_cli(
        "compare-arms", "small", "--db", database_url, "--bootstrap", "50", "--json"
    )
    assert compared.exit_code == 0, compared.output
    import json

    result = json.loads(compared.output)
    assert [a["arm"] for a in result["arms"]] == ["long", "short"]
    assert all(a["workers"] >= 3 for a in result["arms"])
