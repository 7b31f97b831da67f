"""A participant's session belongs to the browser that started it (issue 41, hole 1): the task
page's address and its token, leaked, let nobody else see the task or submit in the
participant's name; a second device of the same participant gets a clear page; every such
attempt is an event. Also the participant path's times (hole 2). On a study link, through the
real CLI and task server; Prolific's participants come through the same pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from harness.store import session_scope
from harness.store.models import Event, EventKind, Judgment
from harness.web import browsers
from tests.web.factories import launched_link
from tests.web.fuzzing import page_fields


@pytest.fixture(scope="module")
def link(tmp_path_factory):
    """A study link with room for many participants, and its task server."""
    yield from launched_link(tmp_path_factory.mktemp("link"))


def start(app, participant, **headers):
    """A browser (a client with its own cookies) that arrives as ``participant``: the browser,
    its task page's address and the page's HTML."""
    browser = app.test_client()
    arrived = browser.get(f"/p/small?participant={participant}", headers=headers)
    assert arrived.status_code == 303, arrived.get_data(as_text=True)
    page_url = arrived.headers["Location"]
    page = browser.get(page_url)
    assert page.status_code == 200
    return browser, page_url, page.get_data(as_text=True)


def submission(page_url, html, participant, **changes):
    fields = dict(page_fields(html, participant, page_url.rsplit("/", 1)[1]))
    return fields | changes


def attempts(engine, page_url):
    ref = page_url.rsplit("/", 1)[1]
    with session_scope(engine) as session:
        rows = session.exec(
            select(Event)
            .where(Event.kind == EventKind.SLOT_OTHER_BROWSER, Event.subject == ref)
            .order_by(Event.id)
        ).all()
        return [(e.payload["participant"], e.payload["at"]) for e in rows]


def stored(engine, page_url):
    from harness.store.models import Assignment

    ref = page_url.rsplit("/", 1)[1]
    with session_scope(engine) as session:
        return len(
            session.exec(
                select(Judgment)
                .join(Assignment, Assignment.id == Judgment.assignment_id)
                .where(Assignment.platform_assignment_id == ref)
            ).all()
        )


def test_a_leaked_task_address_neither_shows_the_task_nor_submits(link):
    app, engine = link
    owner, page_url, html = start(app, "P1")
    stranger = app.test_client()  # another browser with the address (history, a forum post)
    seen = stranger.get(page_url)
    assert seen.status_code == 403
    assert browsers.TITLE in seen.get_data(as_text=True)
    posted = stranger.post(f"{page_url}/submit", data=submission(page_url, html, "P1"))
    assert posted.status_code == 403
    assert posted.json["errors"] == [browsers.REFUSED]
    assert stored(engine, page_url) == 0
    assert attempts(engine, page_url) == [("P1", "page"), ("P1", "submit")]
    mine = owner.post(f"{page_url}/submit", data=submission(page_url, html, "P1"))
    assert mine.status_code == 200 and mine.json["created"] is True  # not "already recorded"
    assert stored(engine, page_url) == 2
    ref = page_url.rsplit("/", 1)[1]
    assert owner.get_cookie(browsers.cookie_name("small", ref), path="/p/") is None  # done
    assert owner.get(page_url).headers["Location"].endswith(f"/p/small/done/{ref}")


def test_a_second_device_of_the_same_participant_gets_a_clear_page(link):
    app, engine = link
    first, page_url, _ = start(app, "P2")
    second = app.test_client().get("/p/small?participant=P2")
    assert second.status_code == 403
    assert "only that browser can continue it" in second.get_data(as_text=True)
    assert attempts(engine, page_url) == [("P2", "arrival")]
    again = first.get("/p/small?participant=P2")  # the browser that started goes on
    assert again.status_code == 303 and again.headers["Location"] == page_url


@pytest.mark.parametrize("https", [True, False])
def test_the_sessions_cookie_is_http_only_same_site_and_secure_over_https(link, https):
    app, _ = link
    headers = {"X-Forwarded-Proto": "https"} if https else {}
    arrived = app.test_client().get(f"/p/small?participant=P3{https}", headers=headers)
    assert arrived.status_code == 303
    cookie = arrived.headers["Set-Cookie"]
    ref = arrived.headers["Location"].rsplit("/", 1)[1]
    assert cookie.startswith(f"{browsers.cookie_name('small', ref)}=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/p/" in cookie
    assert ("Secure" in cookie) is https
    assert browsers.cookie_name("small", ref) != browsers.cookie_name("small", ref + "x")


def test_a_page_token_and_a_cookie_of_another_session_do_not_submit(link):
    app, engine = link
    browser, mine, _ = start(app, "P4")
    _, theirs, html = start(app, "P5")
    posted = browser.post(f"{theirs}/submit", data=submission(theirs, html, "P5"))
    assert posted.status_code == 403 and stored(engine, theirs) == 0
    assert attempts(engine, theirs) == [("P5", "submit")] and attempts(engine, mine) == []


@pytest.mark.parametrize(("shown", "status"), [("253402300800000", 400), (timedelta(days=-3), 422)])
def test_times_outside_the_sessions_window_are_refused_not_a_server_error(link, shown, status):
    app, engine = link
    browser, page_url, html = start(app, f"P6{status}")
    if isinstance(shown, timedelta):
        from harness.clock import utcnow

        shown = str(round((utcnow() + shown).timestamp() * 1000))
    posted = browser.post(
        f"{page_url}/submit",
        data=submission(page_url, html, "x", **{"workerId": f"P6{status}", "shown-0": shown}),
    )
    assert posted.status_code == status, posted.json
    assert posted.json["ok"] is False and stored(engine, page_url) == 0
