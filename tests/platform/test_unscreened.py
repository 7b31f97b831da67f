"""Screening cannot be skipped: what a task server stored and never screened (killed between
the two, or its screening failed) is screened by the next `harness sync` or `harness review`
(a server's start: `tests/web/test_serve_command.py`), before anything is approved; a
screening failure is an event, not only a line on stderr."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Event, EventKind
from tests.platform.factories import harness_cli
from tests.platform.test_decision_races import BAD, noop, stored_study_unscreened

__all__ = ["noop"]  # the fixture


def assignments(database_url: str) -> list[Assignment]:
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            return list(session.exec(select(Assignment)))
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", ["sync", "review"])
def test_what_a_killed_server_left_unscreened_is_screened_before_review(
    noop, database_url, tmp_path, command
):
    stored_study_unscreened(noop, database_url, tmp_path)
    assert [a.screened_at for a in assignments(database_url)] == [None] * 6
    result = harness_cli(command, "small", "--db", database_url)
    assert result.exit_code == 0, result.output
    assert all(a.screened_at is not None for a in assignments(database_url))
    states = {s.worker_id: set() for s in noop.world.submissions.values()}
    for s in noop.world.submissions.values():
        states[s.worker_id].add(s.state.value)
    assert BAD == noop.world.excluded  # blocked, whichever command screened them
    for worker in BAD:
        assert "rejected" in states[worker]  # screened before anything was approved
    if command == "review":
        assert states["W1"] == states["W2"] == {"approved"}


def test_a_screening_failure_is_an_event_and_review_approves_nothing(
    noop, database_url, tmp_path, monkeypatch
):
    stored_study_unscreened(noop, database_url, tmp_path)

    def broken(_engine, _study):
        raise ConnectionError("the database connection was dropped")

    monkeypatch.setattr("harness.screening.live.screen_pending", broken)
    result = harness_cli("review", "small", "--db", database_url)
    assert result.exit_code == 1
    assert (
        "screening small's stored assignments failed (ConnectionError: the database connection "
        "was dropped); nothing was reviewed. Fix the cause and run `harness review` again"
    ) in result.output
    assert {s.state.value for s in noop.world.submissions.values()} == {"submitted"}
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            failed = session.exec(
                select(Event).where(Event.kind == EventKind.AFTER_SUBMISSION_FAILED)
            ).all()
    finally:
        engine.dispose()
    assert [e.payload["error"] for e in failed] == [
        "ConnectionError: the database connection was dropped"
    ]
