"""Pausing a study, on SQLite and PostgreSQL: two people pausing at once pause it once; a
paused study stays paused when its launch is run again; an expired one cannot be paused; MTurk
says it has no pause and what to do instead, and nothing is logged."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlmodel import select

from harness.errors import PlatformError
from harness.platform.pause import pause_study, resume_study
from harness.platform.registry import provider_for
from harness.store import launched_study, make_engine, session_scope
from harness.store.models import Event, Study, StudyStatus
from tests.platform.factories import harness_cli, launch_args, small_spec


def launched_link(tmp_path: Path, db: str) -> Path:
    spec = small_spec(tmp_path, hosting="external")
    result = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://tasks.test"
    )
    assert result.exit_code == 0, result.output
    return spec


def kinds(db: str) -> list[str]:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = [e.kind.value for e in session.exec(select(Event).order_by(Event.id))]
    engine.dispose()
    return [k for k in found if k.startswith("study.p") or k.startswith("study.r")]


def status(db: str) -> StudyStatus:
    engine = make_engine(db)
    with session_scope(engine) as session:
        found = session.exec(select(Study.status)).one()
    engine.dispose()
    return found


def test_two_people_pausing_at_once_pause_the_study_once(tmp_path, database_url):
    launched_link(tmp_path, database_url)
    engine = make_engine(database_url)
    start = threading.Barrier(4)
    results: list[bool] = []

    def pause(who: int) -> None:
        with session_scope(engine) as session:
            running = launched_study(session, "small")
            start.wait()
            results.append(pause_study(session, provider_for(running), running, f"person {who}"))

    threads = [threading.Thread(target=pause, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engine.dispose()
    assert sorted(results) == [False, False, False, True]
    assert kinds(database_url) == ["study.pause.intent", "study.paused"]
    assert status(database_url) is StudyStatus.PAUSED


def test_a_paused_study_stays_paused_when_its_launch_runs_again_and_resumes(tmp_path, database_url):
    spec = launched_link(tmp_path, database_url)
    assert harness_cli("pause", "small", "--db", database_url).exit_code == 0
    again = harness_cli(
        "launch",
        str(spec),
        "--target",
        "link",
        "--db",
        database_url,
        "--public-url",
        "http://tasks.test",
    )
    assert again.exit_code == 0, again.output
    assert status(database_url) is StudyStatus.PAUSED
    resumed = harness_cli("resume", "small", "--db", database_url)
    assert resumed.output == "small: resumed; new workers can start\n"
    assert status(database_url) is StudyStatus.RUNNING
    assert kinds(database_url) == [
        "study.pause.intent",
        "study.paused",
        "study.resume.intent",
        "study.resumed",
    ]


def test_an_expired_study_cannot_be_paused_or_resumed(tmp_path, database_url):
    launched_link(tmp_path, database_url)
    assert harness_cli("expire", "small", "--db", database_url).exit_code == 0
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        running = launched_study(session, "small")
        with pytest.raises(
            PlatformError, match="study 'small' is expired: only a running study can be paused"
        ):
            pause_study(session, provider_for(running), running, "too late")
        with pytest.raises(PlatformError, match="only a paused study can be resumed"):
            resume_study(session, provider_for(running), running, "too late")
    engine.dispose()
    assert kinds(database_url) == []


def test_mturk_has_no_pause_and_says_what_to_do_instead(tmp_path, mturk, sqlite_db):
    db = sqlite_db
    spec = small_spec(tmp_path)
    assert harness_cli(*launch_args(spec, mturk.url, db)).exit_code == 0
    refused = harness_cli("pause", "small", "--db", db)
    assert refused.exit_code == 1
    assert refused.output == (
        "Error: MTurk has no pause: its API can only expire a HIT, which stops new workers for "
        "good (workers already on it can still submit). To stop new workers, expire the study; "
        "to collect more work later, launch a new study.\n"
    )
    assert status(db) is StudyStatus.RUNNING and kinds(db) == []


def test_a_simulated_crowd_is_not_sent_to_a_paused_study(tmp_path, sqlite_db):
    """Issue 39: it printed "0 assignments submitted by 0 simulated workers", exit 0."""
    launched_link(tmp_path, sqlite_db)
    assert harness_cli("pause", "small", "--db", sqlite_db).exit_code == 0
    sent = harness_cli("simulate-workers", "small", "--db", sqlite_db)
    assert sent.exit_code == 1
    assert (
        "Error: study 'small' is paused: nobody new can start it, so no simulated worker "
        "would; `harness resume small` first"
    ) in sent.output
