"""Nothing on the dashboard without logging in; every state change needs the session's CSRF
token; the login cookie is HttpOnly and SameSite=Strict; guessing the password is slowed;
a worker's credentials open nothing."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from harness.errors import InputError
from harness.store import make_engine, session_scope
from harness.store.dashboard_logins import FREE_FAILURES as MAX_FAILURES
from harness.store.models import Event, EventKind
from harness.web.dashboard import DashboardSettings, create_dashboard_app
from harness.web.dashboard.access import COOKIE_NAME, PASSWORD_VARIABLE
from tests.factories import migrated_sqlite
from tests.web.dashboard.factories import PASSWORD, SETTINGS

CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    url = migrated_sqlite(tmp_path / "h.db")
    app = create_dashboard_app(url, SETTINGS)
    yield app
    app.extensions["harness.web.dashboard"].close()


def token_of(client: Any, path: str = "/dashboard/login") -> str:
    found = CSRF.search(client.get(path).get_data(as_text=True))
    assert found
    return found.group(1)


def log_in(client: Any, password: str = PASSWORD) -> Any:
    return client.post(
        "/dashboard/login", data={"password": password, "csrf_token": token_of(client)}
    )


def state_changing_routes(app: Any) -> list[str]:
    """Every POST route of the dashboard, with its variables filled in."""
    values = {"name": "small", "decision_id": 1, "verdict": "overrule", "worker": "AW001"}
    paths = []
    for rule in app.url_map.iter_rules():
        if "POST" in rule.methods and rule.endpoint.startswith("dashboard"):
            paths.append(re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), rule.rule))
    return sorted(paths)


def test_every_state_changing_route_refuses_a_request_without_a_session(app):
    paths = state_changing_routes(app)
    assert len(paths) >= 9  # login, logout, block, approve, reject, bonus, expire, raters, decision
    client = app.test_client()
    token = token_of(client)  # a token, but from a session that never logged in
    for path in paths:
        if path.endswith("/login"):
            continue
        fresh = app.test_client()
        assert fresh.post(path, data={"worker": "AW001"}).status_code in (401, 403), path
        refused = client.post(path, data={"worker": "AW001", "csrf_token": token})
        assert refused.status_code == 401, path


def test_every_state_changing_route_refuses_a_request_without_the_csrf_token(app):
    client = app.test_client()
    assert log_in(client).status_code == 303
    assert client.get("/dashboard/").status_code == 200
    for path in state_changing_routes(app):
        missing = client.post(path, data={"worker": "AW001", "password": PASSWORD})
        assert missing.status_code == 403, path
        assert b"CSRF" in missing.data
        wrong = client.post(path, data={"worker": "AW001", "csrf_token": "forged"})
        assert wrong.status_code == 403, path
        header = client.post(path, headers={"X-CSRF-Token": "forged"})
        assert header.status_code == 403, path
    engine = make_engine(app.extensions["harness.web.dashboard"].engine.url)
    with session_scope(engine) as session:
        kinds = session.exec(select(Event.kind)).all()
        assert kinds == [EventKind.DASHBOARD_LOGIN]  # the login, and nothing done
    engine.dispose()


def test_pages_and_the_event_stream_need_a_login(app):
    client = app.test_client()
    for path in ("/dashboard/", "/dashboard/study/small", "/dashboard/study/small/worker/AW1"):
        response = client.get(path)
        assert response.status_code == 302, path
        assert "/dashboard/login?next=" in response.headers["Location"]
    assert client.get("/dashboard/study/small/stream").status_code == 401


def test_a_workers_credentials_open_nothing(app):
    client = app.test_client()
    worker = {"workerId": "AW001", "assignmentId": "A1", "hitId": "H1", "turkSubmitTo": "x"}
    page = client.get("/dashboard/", query_string=worker)
    assert page.status_code == 302 and "/login" in page.headers["Location"]
    basic = client.get("/dashboard/", headers={"Authorization": "Basic QVcwMDE6eA=="})
    assert basic.status_code == 302
    bearer = client.get("/dashboard/study/small/stream", headers={"Authorization": "Bearer x"})
    assert bearer.status_code == 401
    client.set_cookie("session", "anything")  # a cookie of any other app on the same host
    assert client.get("/dashboard/").status_code == 302
    assert log_in(client, "AW001").status_code == 401  # a worker id is not the password


def test_the_task_server_with_the_dashboard_gives_workers_no_login(tmp_path):
    from harness.web import create_app

    url = migrated_sqlite(tmp_path / "h.db")
    app = create_app(url, dashboard=SETTINGS)
    try:
        client = app.test_client()
        task = client.get("/hit/small-0", query_string={"workerId": "AW001"})
        assert "Set-Cookie" not in task.headers  # the worker pages hand out no session
        assert client.get("/dashboard/").status_code == 302
        assert log_in(client).status_code == 303
        assert client.get("/dashboard/").status_code == 200
    finally:
        app.extensions["harness"].close()


def test_in_the_task_server_the_dashboard_keeps_its_own_policy_scripts_by_nonce_no_framing(
    tmp_path,
):
    """The task pages' policy (no scripts without their nonce, framed by the platform) is not
    the dashboard's: its pages run their scripts by a nonce of their own and are framed by
    nobody."""
    from harness.web import create_app

    url = migrated_sqlite(tmp_path / "h.db")
    app = create_app(url, dashboard=SETTINGS)
    try:
        client = app.test_client()
        log_in(client)
        policies = [client.get("/dashboard/").headers["Content-Security-Policy"] for _ in "ab"]
    finally:
        app.extensions["harness"].close()
    nonces = {m.group(1) for p in policies if (m := re.search(r"script-src 'nonce-([^']+)'", p))}
    assert len(nonces) == 2  # one per answer
    assert all("frame-ancestors 'none'" in p and "connect-src 'self'" in p for p in policies)


def test_the_login_cookie_is_httponly_samesite_strict_and_for_the_dashboard_only(app):
    client = app.test_client()
    response = log_in(client)
    assert response.status_code == 303
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE_NAME}=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/dashboard" in cookie
    secure = DashboardSettings(PASSWORD, SETTINGS.secret, secure_cookie=True)
    app.config["SESSION_COOKIE_SECURE"] = secure.secure_cookie
    assert "Secure" in log_in(app.test_client()).headers["Set-Cookie"]


def test_a_wrong_password_is_refused_and_guessing_is_rate_limited(app):
    client = app.test_client()
    for _ in range(MAX_FAILURES):
        wrong = log_in(client, "guess")
        assert wrong.status_code == 401
        assert b"Wrong password." in wrong.data
    limited = log_in(client, PASSWORD)  # even the right one, until the window has passed
    assert limited.status_code == 429
    assert b"Too many failed attempts: wait" in limited.data
    assert client.get("/dashboard/").status_code == 302


def test_logging_in_needs_the_login_forms_token_and_logging_out_ends_the_session(app):
    client = app.test_client()
    assert client.post("/dashboard/login", data={"password": PASSWORD}).status_code == 403
    assert log_in(client).status_code == 303
    token = token_of(client, "/dashboard/")
    assert client.post("/dashboard/logout", data={"csrf_token": token}).status_code == 303
    assert client.get("/dashboard/").status_code == 302


def test_after_login_only_a_dashboard_page_is_a_destination(app):
    client = app.test_client()
    token = token_of(client)
    for target, lands in (
        ("/dashboard/study/x", "/dashboard/study/x"),
        ("https://elsewhere.example/", "/dashboard/"),
        ("//elsewhere.example/dashboard/", "/dashboard/"),
    ):
        fresh = app.test_client()
        token = token_of(fresh)
        done = fresh.post(
            "/dashboard/login", data={"password": PASSWORD, "csrf_token": token, "next": target}
        )
        assert done.headers["Location"] == lands


def test_the_dashboard_refuses_to_start_off_loopback_without_a_long_enough_password(
    monkeypatch,
):
    monkeypatch.delenv(PASSWORD_VARIABLE, raising=False)
    with pytest.raises(InputError, match="in HARNESS_DASHBOARD_PASSWORD \\(none is given;"):
        DashboardSettings.from_environment("0.0.0.0")
    made = DashboardSettings.from_environment("127.0.0.1")
    assert len(made.password) >= 16
    monkeypatch.setenv(PASSWORD_VARIABLE, "x")
    assert DashboardSettings.from_environment("127.0.0.1").password == "x"  # loopback only
    with pytest.raises(InputError, match="at least 12 characters .*\\(the one given has 1;"):
        DashboardSettings.from_environment("10.1.2.3")
    monkeypatch.setenv(PASSWORD_VARIABLE, "chosen carefully")
    assert DashboardSettings.from_environment("10.1.2.3").password == "chosen carefully"


def test_the_command_refuses_a_public_address_without_a_password(monkeypatch):
    from tests.platform.factories import harness_cli

    monkeypatch.delenv(PASSWORD_VARIABLE, raising=False)
    result = harness_cli("dashboard", "--host", "0.0.0.0")
    assert result.exit_code == 1
    assert result.output == (  # whole: masking secrets leaves the variable's name alone
        "Error: the dashboard on 0.0.0.0 needs a password of at least 12 characters in "
        "HARNESS_DASHBOARD_PASSWORD (none is given; a long random one is best), or serve it "
        "on 127.0.0.1\n"
    )


def test_logging_out_ends_every_copy_of_the_session(app):
    """A cookie copied before the logout (another tab, a stolen copy) opens nothing after."""
    client = app.test_client()
    assert log_in(client).status_code == 303
    copy = app.test_client()
    cookie = client.get_cookie(COOKIE_NAME, path="/dashboard")
    copy.set_cookie(COOKIE_NAME, cookie.value, path="/dashboard")
    assert copy.get("/dashboard/").status_code == 200
    token = token_of(client, "/dashboard/")
    assert client.post("/dashboard/logout", data={"csrf_token": token}).status_code == 303
    assert copy.get("/dashboard/").status_code == 302  # to the login page
    assert copy.get("/dashboard/study/x/stream").status_code == 401
    again = app.test_client()
    assert log_in(again).status_code == 303  # a new login is a new session
    assert again.get("/dashboard/").status_code == 200


def test_failed_logins_are_counted_in_the_store_and_each_makes_the_wait_longer(tmp_path):
    """Two dashboard processes on one store share the count; the wait doubles with each
    failure past the free ones; a success starts again."""
    from datetime import timedelta

    from harness.clock import utcnow
    from harness.store.dashboard_logins import (
        FREE_FAILURES,
        login_failed,
        login_succeeded,
        login_wait,
    )

    url = migrated_sqlite(tmp_path / "h.db")
    first, second = (create_dashboard_app(url, SETTINGS) for _ in range(2))
    try:
        for _ in range(FREE_FAILURES):
            assert log_in(first.test_client(), "guess").status_code == 401
        refused = log_in(second.test_client(), PASSWORD)  # the other process knows
        assert refused.status_code == 429
        assert b"Too many failed attempts: wait 1 s before trying again." in refused.data
    finally:
        for app in (first, second):
            app.extensions["harness.web.dashboard"].close()
    engine = make_engine(url)
    try:
        with session_scope(engine) as session:
            waits = []
            for _ in range(FREE_FAILURES + 4):
                before = utcnow()
                login_failed(session, "10.0.0.9")
                session.flush()
                waits.append(login_wait(session, "10.0.0.9", before))
            later = utcnow() + timedelta(minutes=16)  # past the window: free again
            assert login_wait(session, "10.0.0.9", later) == 0
            login_succeeded(session, "10.0.0.9")
            session.flush()
            assert login_wait(session, "10.0.0.9", utcnow()) == 0  # a success starts again
    finally:
        engine.dispose()
    assert [math.floor(w) for w in waits] == [0] * (FREE_FAILURES - 1) + [1, 2, 4, 8, 16]
