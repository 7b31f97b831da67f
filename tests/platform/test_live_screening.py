"""Sync screens each new submission live; review then applies what screening decided."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.providers.mturk.crowd import SimulatedWorkers, mturk_worker_id
from harness.simulate import Crowd
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import (
    Assignment,
    AssignmentStatus,
    DecisionState,
    Event,
    ScreeningDecision,
    Worker,
)
from tests.factories import migrated_sqlite
from tests.platform.factories import (
    harness_cli,
    launch_args,
    small_spec,
    truths_of,
    until_verified,
)


def platform_states(client, assignment_ids):
    return {
        aid: client.get_assignment(AssignmentId=aid)["Assignment"]["AssignmentStatus"]
        for aid in assignment_ids
    }


@pytest.mark.parametrize("apply", ["--apply-decisions", "--no-apply-decisions"])
def test_flagged_work_is_rejected_live_or_at_review_and_the_rest_approved(
    tmp_path, mturk, http, client, apply
):
    spec = small_spec(
        tmp_path,
        items=20,
        per_hit=5,
        raters=3,
        controls="{identical: {per_hit: 1, seed: 3}}",
        screening="{calibration_failure: {threshold: 0, action: reject}}",
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

    assert harness_cli("sync", "small", "--db", db, apply).exit_code == 0
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            decisions = session.exec(select(ScreeningDecision).where(ScreeningDecision.flag)).all()
            flagged = {session.get(Worker, d.worker_id).platform_worker_id for d in decisions}
            applied_by_sync = {d.state for d in decisions}
        assert flagged and flagged <= liners  # careful workers pass the identical pairs
        on_platform = set(platform_states(client, report.submitted).values())
        if apply == "--apply-decisions":  # rejected as the submissions were synced
            assert applied_by_sync == {DecisionState.APPLIED}
            assert on_platform == {"Submitted", "Rejected"}
        else:  # left for review
            assert applied_by_sync == {DecisionState.PENDING}
            assert on_platform == {"Submitted"}

        reviewed = harness_cli("review", "small", "--db", db)
        assert reviewed.exit_code == 0, reviewed.output
        with session_scope(engine) as session:
            rows = session.exec(select(Assignment, Worker).join(Worker)).all()
            status = {a.platform_assignment_id: (w.platform_worker_id, a.status) for a, w in rows}
            assert all(
                d.state is DecisionState.APPLIED
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


def test_the_task_server_screens_and_acts_live_and_sync_finishes_what_had_to_wait(
    tmp_path, mturk, http, client
):
    """External hosting: the page stores the answers before it submits to MTurk, so a
    rejection may have to wait for a later submission or the next sync; blocks happen at once."""
    from harness.platform.submissions.after_submission import hook
    from tests.serving import ServedApp, until_rechecked

    spec = small_spec(
        tmp_path,
        items=20,
        per_hit=5,
        raters=3,
        hosting="external",
        controls="{identical: {per_hit: 1, seed: 3}}",
        screening="{calibration_failure: {threshold: 0, action: reject}, "
        "low_variance: {action: block}}",
    )
    db = migrated_sqlite(tmp_path / "h.db")
    from harness.web import create_app

    app = create_app(db, after_submission=hook(True))
    server = ServedApp(app).start()
    try:
        launched = harness_cli(*launch_args(spec, mturk.url, db, "--public-url", server.url))
        assert launched.exit_code == 0, launched.output
        loaded = load_spec(spec)
        workers = Crowd({"careful": 4, "straight_liner": 2}, size=6, seed=5).workers(loaded.scale)
        report = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http).run()
        until_rechecked(app)  # the last submissions are stored and screened a moment later
        assert until_verified(db) == 0  # every one verified and screened live
    finally:
        server.stop()
        app.extensions["harness"].close()
    assert report.refused == []
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            kinds = [e.kind for e in session.exec(select(Event))]
        assert "worker.blocked" in kinds  # blocked while the study ran
        synced = harness_cli("sync", "small", "--db", db)
        assert synced.exit_code == 0, synced.output
        with session_scope(engine) as session:
            pending = [
                d
                for d in session.exec(select(ScreeningDecision).where(ScreeningDecision.flag))
                if d.state is not DecisionState.APPLIED
            ]
        assert pending == []  # what had to wait for MTurk is done by the sync
    finally:
        engine.dispose()
    assert "Rejected" in set(platform_states(client, report.submitted).values())
