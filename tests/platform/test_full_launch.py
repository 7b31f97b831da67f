"""A full launch of the WS353 instrument on the local service, done by simulated workers.

Everything goes through the real pieces: `harness launch/sync/review` (click), boto3 against
the local MTurk service, the task server (harness.web) storing what the pages post, and
simulated workers using the worker side over HTTP. Three raters per pair instead of the
shipped spec's 13: every HIT and item goes through the same loop, with a quarter of the work
(tests/test_demo.py runs the shipped spec's whole 13 on SQLite).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import func, select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus, Event, Hit, Judgment, Study
from tests.factories import TASK_SPECS
from tests.platform.factories import (
    WORKER_PROFILE,
    crowd_workers,
    harness_cli,
    hits_on_platform,
    launch_args,
    truths_of,
    until_verified,
)

WS353_SPEC = TASK_SPECS / "ws353_reproduction.yaml"
RATERS = 3


def three_raters(directory: Path) -> Path:
    """The shipped WS353 reproduction spec with 3 raters per pair, written into ``directory``."""
    text = WS353_SPEC.read_text(encoding="utf-8")
    assert "\nraters_per_item: 13\n" in text and "file: guidelines/" in text
    spec = directory / WS353_SPEC.name
    spec.write_text(
        text.replace("\nraters_per_item: 13\n", f"\nraters_per_item: {RATERS}\n").replace(
            "file: guidelines/", f"file: {TASK_SPECS}/guidelines/"
        ),
        encoding="utf-8",
    )
    return spec


def all_assignments(client, hit_id):
    return client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]


@pytest.mark.slow
# on PostgreSQL: the README's main job (tests/test_demo.py) runs this whole loop on SQLite
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_ws353_reproduction_runs_end_to_end_on_local(
    ws353_dir, mturk, client, tasks, database_url, http, tmp_path
):
    spec = three_raters(tmp_path)
    loaded = load_spec(spec)
    launched = harness_cli(*launch_args(spec, mturk.url, database_url, "--public-url", tasks.url))
    assert launched.exit_code == 0, launched.output
    assert "12 HITs on local (12 posted now" in launched.output
    assert "lifetime 7 days, 15 min per assignment, auto-approval after 3 days" in launched.output
    balance = "balance on local: $10,000.00 (a local service's play money)"
    # $0.75 x 3 x 12 HITs, MTurk's 20% fee on top (HITs of fewer than 10 assignments)
    assert f"{balance}; still to post: $32.40" in launched.output

    hits = hits_on_platform(client)
    assert len(hits) == loaded.n_hits == 12
    assert {h["MaxAssignments"] for h in hits} == {RATERS}
    assert sorted(h["RequesterAnnotation"].split()[-1] for h in hits) == sorted(
        f"hit={i}" for i in range(12)
    )

    workers = crowd_workers(loaded, size=20)
    driver = SimulatedWorkers(
        mturk.url, workers, truths_of(loaded), loaded.scale, http, profile=WORKER_PROFILE
    )
    report = driver.run()
    assert report.refused == []
    assert len(report.submitted) == loaded.assignments == 12 * RATERS
    assert until_verified(database_url) == 0  # the task server's rechecks: MTurk vouched

    synced = harness_cli("sync", "ws353-reproduction", "--db", database_url)
    assert synced.exit_code == 0, synced.output
    assert "36 submitted assignments; 0 stored now" in synced.output
    reviewed = harness_cli("review", "ws353-reproduction", "--db", database_url)
    assert reviewed.exit_code == 0, reviewed.output
    assert "approve 36" in reviewed.output

    for hit in hits:
        statuses = {a["AssignmentStatus"] for a in all_assignments(client, hit["HITId"])}
        assert statuses == {"Approved"}
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study).where(Study.name == "ws353-reproduction")).one()
            judgments = session.exec(select(func.count()).select_from(Judgment)).one()
            approved = session.exec(
                select(func.count())
                .select_from(Assignment)
                .where(Assignment.status == AssignmentStatus.APPROVED)
            ).one()
            stored_hits = session.exec(select(Hit).where(Hit.study_id == study.id)).all()
        assert judgments == loaded.judgments == 4901 // 13 * RATERS  # 377 shown per rater
        assert approved == 36
        assert {h.platform_hit_id for h in stored_hits} == {h["HITId"] for h in hits}

        status = harness_cli("status", "ws353-reproduction", "--db", database_url)
        assert "365 of 365 items at target" in status.output
        assert "assignments (36): approved 36" in status.output
        assert "committed $32.40, spent $32.40 (budget $200.00, left $167.60)" in status.output

        with session_scope(engine) as session:
            events_before = session.exec(select(func.count()).select_from(Event)).one()
        again = harness_cli("sync", "ws353-reproduction", "--db", database_url)
        assert (
            "0 stored now (0 recovered from the platform), 0 assignment and 0 HIT status changes"
            in again.output
        )
        review_again = harness_cli("review", "ws353-reproduction", "--db", database_url)
        assert "nothing to do" in review_again.output
        with session_scope(engine) as session:
            events_after = session.exec(select(func.count()).select_from(Event)).one()
        assert events_after == events_before
    finally:
        engine.dispose()
