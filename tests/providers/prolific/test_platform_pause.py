"""A pause harness did not make is read back from Prolific: Prolific's own automatic pause, and
a pause or resume made on Prolific's website, are recorded by `harness sync` and `harness
status` (the study's status, an event saying the platform did it), so the dashboard shows it
and `harness resume` can resume; a move of harness's own that is under way is left to it."""

from __future__ import annotations

from typing import Any

import requests
from sqlmodel import select

from harness.platform.pause import PLATFORM_PAUSED, PLATFORM_RESUMED, read_platform_pause
from harness.providers.prolific.client import ProlificClient
from harness.providers.prolific.provider import ProlificProvider
from harness.store import launched_study, make_engine, session_scope
from harness.store.events import record_event
from harness.store.models import EventKind, Study, StudyStatus
from tests.platform.factories import harness_cli
from tests.providers.prolific.test_pause_unblock import (
    _events,
    _prolific_study,
    _study_status,
    move,
)


def prolific_pauses(prolific: Any, sid: str) -> None:
    """What Prolific does on its own (its automatic pause): harness is not told."""
    requests.post(f"{prolific.url}/_control/studies/{sid}/pause", timeout=5).raise_for_status()


def test_prolifics_own_pause_is_recorded_by_sync_once_and_can_be_resumed(prolific, launched):
    _spec, db, _output = launched
    sid = _prolific_study(prolific)["id"]
    prolific_pauses(prolific, sid)
    assert _study_status(db) == "running"  # nobody told harness
    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output
    assert f"small: {PLATFORM_PAUSED}; recorded as paused" in synced.output
    assert _study_status(db) == "paused"
    [paused] = _events(db, "study.paused")
    assert paused.payload == {"reason": PLATFORM_PAUSED, "platform": sid, "source": "platform"}
    again = harness_cli("sync", "small", "--db", db)
    assert "recorded" not in again.output and len(_events(db, "study.paused")) == 1
    assert "paused already; nothing changed" in harness_cli("pause", "small", "--db", db).output
    resumed = harness_cli("resume", "small", "--db", db)
    assert resumed.output == "small: resumed; new workers can start\n"
    assert _prolific_study(prolific)["status"] == "ACTIVE"
    assert _study_status(db) == "running"


def test_status_shows_a_pause_and_a_resume_made_on_prolifics_website(prolific, launched):
    _spec, db, _output = launched
    sid = _prolific_study(prolific)["id"]
    move(prolific, sid, "PAUSE")  # on Prolific's website: the same transition, not harness's
    status = harness_cli("status", "small", "--db", db)
    assert status.exit_code == 0, status.output
    assert "study small on prolific-local: paused" in status.output
    assert f"small: {PLATFORM_PAUSED}; recorded as paused" in status.output
    move(prolific, sid, "START")
    status = harness_cli("status", "small", "--db", db)
    assert "study small on prolific-local: running" in status.output
    assert f"small: {PLATFORM_RESUMED}; recorded as running" in status.output
    [resumed] = _events(db, "study.resumed")
    assert resumed.payload["source"] == "platform"
    quiet = harness_cli("status", "small", "--db", db)
    assert "recorded" not in quiet.output and len(_events(db, "study.resumed")) == 1


def test_a_study_stopped_on_prolific_is_neither_paused_nor_resumed(prolific, launched):
    _spec, db, _output = launched
    move(prolific, _prolific_study(prolific)["id"], "STOP")
    status = harness_cli("status", "small", "--db", db)
    assert "study small on prolific-local: running" in status.output
    assert _events(db, "study.paused") == [] and _events(db, "study.resumed") == []


def test_a_pause_of_harness_under_way_is_left_to_finish(prolific, launched):
    _spec, db, _output = launched
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:  # a pause killed before it reached Prolific
            row = session.exec(select(Study)).one()
            record_event(
                session,
                EventKind.STUDY_PAUSE_INTENT,
                study_id=row.id,
                subject=row.name,
                payload={"reason": "r", "from": "running"},
            )
            row.status = StudyStatus.PAUSED
            session.add(row)
        client = ProlificProvider(ProlificClient(prolific.url, "local"), "prolific-local")
        with session_scope(engine) as session:
            running = launched_study(session, "small")
            assert read_platform_pause(session, client, running) is None  # Prolific: ACTIVE
    finally:
        engine.dispose()
    assert _study_status(db) == "paused" and _events(db, "study.resumed") == []
    finished = harness_cli("pause", "small", "--db", db)
    assert finished.output.startswith("small: paused.")
    assert _prolific_study(prolific)["status"] == "PAUSED"


def test_status_prints_the_stores_figures_when_prolific_cannot_be_read(
    prolific, launched, monkeypatch
):
    from tests.providers.prolific.conftest import faults

    _spec, db, _output = launched
    # every retry is still made; only the waits between them (seconds in all) are left out
    monkeypatch.setattr(ProlificClient, "_backoff", lambda self, attempt: 0.0)
    faults(prolific.url, unavailable_share=1.0)
    status = harness_cli("status", "small", "--db", db)
    assert status.exit_code == 0, status.output
    assert "study small on prolific-local: running" in status.output
    assert "could not read the study's status from Prolific" in status.output
