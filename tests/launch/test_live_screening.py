"""Sync screens each new submission live; review then applies what screening decided."""

from __future__ import annotations

from sqlmodel import select

from harness.simulate import Crowd
from harness.simulate.driver import SimulatedWorkers, mturk_worker_id
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus, ScreeningDecision, Worker
from tests.launch.factories import harness_cli, launch_args, small_spec, truths_of


def test_sync_screens_live_and_review_rejects_blocks_and_approves(tmp_path, mturk, http, client):
    spec = small_spec(
        tmp_path,
        items=20,
        per_hit=5,
        raters=3,
        controls="{identical: {per_hit: 1, seed: 3}}",
        screening="{calibration_failure: {action: reject}}",
    )
    db = f"sqlite:///{tmp_path / 'h.db'}"
    launched = harness_cli(*launch_args(spec, mturk.url, db))
    assert launched.exit_code == 0, launched.output
    loaded = load_spec(spec)
    crowd = Crowd({"careful": 4, "straight_liner": 2}, size=6, seed=5)
    workers = crowd.workers(loaded.scale)
    liners = {mturk_worker_id(w.worker_id) for w in workers if w.archetype == "straight_liner"}
    report = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http).run()
    assert len(report.submitted) == 12

    assert harness_cli("sync", "small", "--db", db).exit_code == 0
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            flagged = {
                session.get(Worker, d.worker_id).platform_worker_id
                for d in session.exec(select(ScreeningDecision).where(ScreeningDecision.flag))
            }
        assert flagged and flagged <= liners  # careful workers pass the identical pairs

        reviewed = harness_cli("review", "small", "--db", db)
        assert reviewed.exit_code == 0, reviewed.output
        with session_scope(engine) as session:
            rows = session.exec(select(Assignment, Worker).join(Worker)).all()
            status = {a.platform_assignment_id: (w.platform_worker_id, a.status) for a, w in rows}
            assert all(
                d.applied
                for d in session.exec(select(ScreeningDecision).where(ScreeningDecision.flag))
            )
    finally:
        engine.dispose()
    rejected = {aid for aid, (_, s) in status.items() if s is AssignmentStatus.REJECTED}
    assert rejected, reviewed.output
    assert all(status[aid][0] in flagged for aid in rejected)
    for aid, (_, state) in status.items():
        on_platform = client.get_assignment(AssignmentId=aid)["Assignment"]
        assert on_platform["AssignmentStatus"] == state.value.capitalize()
        if state is AssignmentStatus.REJECTED:
            assert "a word paired with itself" in on_platform["RequesterFeedback"]
        else:
            assert state is AssignmentStatus.APPROVED
