"""A study page's live update reads and sends what changed: a new submission and its event are
read by id and added to the page's figures (the rest of the study is read again at most every
second, or at once after a person's action), and an open page's event stream sends the new
event's row, not the whole feed again. On SQLite and PostgreSQL, through Flask's test client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus, Event, EventKind, Hit, Study, Worker
from harness.web.dashboard.watch import Watcher
from tests.clock import minutes_ago
from tests.web.dashboard.stored import StoredStudy, dashboard_client, stored_study, study_url

SUBMISSIONS = 12


@pytest.fixture
def study(store_copy: Any) -> StoredStudy:
    url, built = store_copy("pending-12", lambda u, folder: stored_study(folder, SUBMISSIONS, u))
    return StoredStudy(url, built.ids)


def submit(db: str, aid: str) -> int:
    """Store one more submission ``aid`` (a new worker's, on HIT 0) and its event; the
    study's id."""
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study)).one()
            hit = session.exec(select(Hit).where(Hit.study_id == study.id, Hit.index == 0)).one()
            worker = Worker(platform_worker_id=f"W-{aid}")
            session.add(worker)
            session.flush()
            session.add(
                Assignment(
                    hit_id=hit.id,
                    worker_id=worker.id,
                    platform_assignment_id=aid,
                    status=AssignmentStatus.SUBMITTED,
                    accepted_at=minutes_ago(2),
                    submitted_at=minutes_ago(1),
                )
            )
            session.add(Event(study_id=study.id, kind=EventKind.ASSIGNMENT_SUBMITTED, subject=aid))
            assert study.id is not None
            return study.id
    finally:
        engine.dispose()


def test_a_new_submission_is_added_to_the_snapshot_without_reading_the_study_again(study):
    engine = make_engine(study.db)
    hour = 3600.0  # no full reading, and no new figures, unless asked
    watcher = Watcher(
        engine, check_every=0.0, full_every=hour, figures_every=hour, alpha_every=hour
    )
    try:
        study_id = submit(study.db, "A-first")  # the store as the page first reads it
        first = watcher.snapshot(study_id)
        assert first.full == first.version
        submit(study.db, "A-new")
        quick = watcher.snapshot(study_id)
        assert quick.version > first.version
        assert quick.full == first.full  # the report, HITs and workers were not read again
        assert [a["id"] for a in quick.pending][-2:] == ["A-first", "A-new"]
        assert quick.events[0]["subject"] == "A-new"
        assert quick.seen == quick.events[0]["id"]
        assert quick.report == first.report  # counted at the next full reading
        watcher.moved(study_id)  # a person's action: everything is read again
        full = watcher.snapshot(study_id)
        assert full.full == full.version
        assert sum(full.report.assignments.values()) == sum(first.report.assignments.values()) + 1
        assert [a["id"] for a in full.pending] == [a["id"] for a in quick.pending]
    finally:
        watcher.close()  # its readings in threads use the engine
        engine.dispose()


def log(db: str, subject: str) -> None:
    """Log a ``hit.status`` event in the study (it changes no figure of the page)."""
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study)).one()
            session.add(Event(study_id=study.id, kind=EventKind.HIT_STATUS, subject=subject))
    finally:
        engine.dispose()


def updates(response: Any) -> Iterator[dict[str, Any]]:
    """The ``update`` messages of an open event stream, as they come."""
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            if message.startswith("event: update\n"):
                yield json.loads(message.split("data: ", 1)[1])


def test_an_open_page_is_sent_the_new_events_row_not_the_whole_feed(study):
    client, _ = dashboard_client(study.db)
    watcher = client.application.extensions["harness.web.dashboard"].watcher
    watcher.check_every = 0.0
    response = client.get(study_url("/stream"), buffered=False)
    stream = updates(response)
    first = next(stream)
    assert set(first["sections"]) == {"progress", "quality", "workers", "review", "events"}
    submit(study.db, "A-new")
    update = next(stream)
    assert "events" not in update["sections"]
    assert 'data-kind="assignment.submitted"><td class="muted">' in update["events"]
    assert update["events"].count("<tr") == 1 and "<td>A-new</td>" in update["events"]
    assert update["seen"] > first["seen"]
    log(study.db, "A-new")  # another event: its row alone
    update = next(stream)
    assert "events" not in update["sections"]
    assert update["events"].count("<tr") == 1 and 'data-kind="hit.status"' in update["events"]
    response.close()
    client.application.extensions["harness.web.dashboard"].close()
