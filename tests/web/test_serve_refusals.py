"""`harness serve` refuses before it does anything: a store left unscreened by a stopped
server (screening would block and reject on start) is exactly as it was after a refusal, on
SQLite and PostgreSQL."""

from __future__ import annotations

import socket

import pytest
from sqlmodel import func, select

from harness.platform.registry import PLATFORMS
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Event, ScreeningDecision
from harness.web.dashboard.access import PASSWORD_VARIABLE
from tests.platform.factories import harness_cli
from tests.platform.test_decision_races import stored_study_unscreened
from tests.providers.noop.platform import NOOP, NoopPlatform


@pytest.fixture
def unscreened(monkeypatch, database_url, tmp_path):
    """A store whose six assignments wait to be screened (two workers to block and reject)."""
    monkeypatch.setitem(PLATFORMS, "noop", "tests.providers.noop.platform:NOOP")
    monkeypatch.setattr(NOOP, "world", NoopPlatform().world)
    stored_study_unscreened(NOOP, database_url, tmp_path)
    return database_url


def state(database_url: str) -> tuple[int, int, int]:
    """(events, screening decisions, assignments screened)."""
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            screened = select(func.count()).where(Assignment.screened_at.is_not(None))
            return (
                session.exec(select(func.count()).select_from(Event)).one(),
                session.exec(select(func.count()).select_from(ScreeningDecision)).one(),
                session.exec(screened).one(),
            )
    finally:
        engine.dispose()


def test_serving_the_dashboard_off_loopback_without_a_password_acts_on_nothing(
    unscreened, monkeypatch
):
    before = state(unscreened)
    assert before[2] == 0
    monkeypatch.delenv(PASSWORD_VARIABLE, raising=False)
    refused = harness_cli("serve", "--db", unscreened, "--dashboard", "--host", "0.0.0.0")
    assert refused.exit_code == 1
    assert "needs a password of at least 12 characters" in refused.output
    monkeypatch.setenv(PASSWORD_VARIABLE, "short")
    refused = harness_cli("serve", "--db", unscreened, "--dashboard", "--host", "0.0.0.0")
    assert "(the one given has 5;" in refused.output
    assert state(unscreened) == before


def test_serving_on_a_port_that_is_taken_acts_on_nothing(unscreened):
    before = state(unscreened)
    assert before[2] == 0  # a server that started would screen all six at once
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        refused = harness_cli("serve", "--db", unscreened, "--port", str(port))
    assert refused.exit_code == 1
    assert refused.output == (
        f"Error: cannot listen on 127.0.0.1:{port} (Address already in use): nothing was "
        "screened or carried out; choose another --port or stop what holds it\n"
    )
    assert state(unscreened) == before
