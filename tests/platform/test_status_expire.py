"""`harness status` reports the study from the store; `harness expire` ends it early and keeps
everything submitted."""

from __future__ import annotations

from sqlmodel import func, select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Event, Judgment
from tests.platform.factories import crowd_workers, harness_cli, launch_args, small_spec, truths_of


def start(tmp_path, mturk, http):
    spec = small_spec(tmp_path, items=8, per_hit=2, raters=2, budget="'2.00'")
    db = f"sqlite:///{tmp_path / 'h.db'}"
    launched = harness_cli(*launch_args(spec, mturk.url, db))
    assert launched.exit_code == 0, launched.output
    loaded = load_spec(spec)
    driver = SimulatedWorkers(
        mturk.url, crowd_workers(loaded, 3), truths_of(loaded), loaded.scale, http
    )
    report = driver.run(rounds=1)  # 3 workers, one HIT each
    assert len(report.submitted) == 3
    return db


def test_status_shows_hits_assignments_coverage_and_money(tmp_path, mturk, http):
    db = start(tmp_path, mturk, http)
    assert harness_cli("sync", "small", "--db", db).exit_code == 0
    harness_cli("review", "small", "--db", db)
    status = harness_cli("status", "small", "--db", db)
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    assert lines[0] == "study small on local: running"
    assert lines[2] == "  assignments (3): approved 3"
    # 3 assignments of 2 items: 6 judgments; 8 items, target 2 raters each
    assert lines[3].startswith("  judgments: 6; raters per item (target 2): min 0,")
    # committed: 4 HITs x 2 x $0.12; spent: 3 approved x $0.12
    assert lines[4] == "  money: committed $0.96, spent $0.36 (budget $2.00, left $1.04)"


def test_expire_ends_the_study_and_keeps_what_was_submitted(tmp_path, mturk, http, client):
    db = start(tmp_path, mturk, http)
    expired = harness_cli("expire", "small", "--db", db)
    assert expired.exit_code == 0, expired.output
    assert "small: 4 HITs expired" in expired.output
    assert "3 stored now" in expired.output
    assert mturk.get("/worker/hits", workerId="ANEW1").json()["HITs"] == []
    statuses = {h["HITStatus"] for h in client.list_hits(MaxResults=100)["HITs"]}
    assert statuses <= {"Reviewable", "Unassignable"}
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            judgments = session.exec(select(func.count()).select_from(Judgment)).one()
            assert judgments == 6
        status = harness_cli("status", "small", "--db", db)
        assert "study small on local: expired" in status.output
        assert harness_cli("expire", "small", "--db", db).exit_code == 0
        with session_scope(engine) as session:
            kinds = session.exec(select(Event.kind)).all()
            assert kinds.count("study.expired") == 1
    finally:
        engine.dispose()


def test_every_command_names_an_unknown_study_in_one_message(tmp_path, mturk, http):
    db = start(tmp_path, mturk, http)
    message = "Error: no study named 'smal' in the store (studies: small)"
    for command in ("status", "sync", "review", "expire", "screen", "simulate-workers"):
        result = harness_cli(command, "smal", "--db", db)
        assert result.exit_code == 1, (command, result.output)
        assert message in result.output, (command, result.output)
    characterize = harness_cli("characterize", "--new", "smal", "--original", "ws353", "--db", db)
    assert characterize.exit_code == 1
    assert "Error: 'smal' is no file, and no study named 'smal' in the store" in (
        characterize.output
    )


def test_a_study_never_launched_is_named_as_such(tmp_path):
    from harness.store import create_study
    from tests.factories import migrated_sqlite

    db = migrated_sqlite(tmp_path / "h.db")
    engine = make_engine(db)
    with session_scope(engine) as session:
        create_study(session, load_spec(small_spec(tmp_path, items=4)))
    engine.dispose()
    for command in ("status", "sync", "review"):
        result = harness_cli(command, "small", "--db", db)
        assert result.exit_code == 1, (command, result.output)
        assert "Error: study 'small' was never launched (no platform record)" in result.output
