"""Consent and debrief on a study link, through the real CLI and task server: the spec's
Markdown shown safely (no markup of the spec's reaches the page), answers refused without a
consent to the study's text, and the consent given stored with the assignment (its text's
hash and when)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest
from sqlmodel import select

from harness.clock import utcnow
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Judgment
from harness.web import create_app
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec
from tests.web.fuzzing import page_fields

CONSENT = "<script>alert(1)</script> I **agree** to take part."
DEBRIEF = "We study <img src=x onerror=alert(2)> *similarity*."


def _launched(directory, name, **extra):
    folder = directory / name
    folder.mkdir()
    db = migrated_sqlite(folder / "h.db")
    spec = small_spec(folder, items=4, per_hit=2, raters=20, hosting="external", name=name, **extra)
    launched = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://t.test"
    )
    assert launched.exit_code == 0, launched.output
    app = create_app(db)
    return app, make_engine(db)


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """A study link whose spec has a consent and a debrief."""
    app, engine = _launched(
        tmp_path_factory.mktemp("consent"),
        "asked",
        consent=json.dumps(CONSENT),
        debrief=json.dumps(DEBRIEF),
    )
    yield app, engine
    app.extensions["harness"].close()
    engine.dispose()


def _page(app, name, participant):
    browser = app.test_client()
    arrived = browser.get(f"/p/{name}?participant={participant}")
    assert arrived.status_code == 303, arrived.get_data(as_text=True)
    url = arrived.headers["Location"]
    return browser, url, browser.get(url).get_data(as_text=True)


def _post(browser, url, html, participant, **extra):
    fields = dict(page_fields(html, participant, url.rsplit("/", 1)[1])) | extra
    return browser.post(f"{url}/submit", data=fields, headers={"Origin": "http://localhost"})


def _consent_of(engine, url):
    with session_scope(engine) as session:
        row = session.exec(
            select(Assignment).where(Assignment.platform_assignment_id == url.rsplit("/", 1)[1])
        ).first()
        return None if row is None else (row.consent_hash, row.consented_at)


def _judgments(engine, url):
    with session_scope(engine) as session:
        query = (
            select(Judgment)
            .join(Assignment, Assignment.id == Judgment.assignment_id)
            .where(Assignment.platform_assignment_id == url.rsplit("/", 1)[1])
        )
        return len(session.exec(query).all())


def test_the_consent_and_debrief_are_shown_as_markdown_and_never_as_markup(asked):
    app, _ = asked
    _, _, html = _page(app, "asked", "READER")
    assert "I <strong>agree</strong> to take part." in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "We study &lt;img src=x onerror=alert(2)&gt; <em>similarity</em>." in html
    assert "<script>alert" not in html and "<img" not in html


def test_answers_without_a_consent_are_refused_and_nothing_is_stored(asked):
    app, engine = asked
    browser, url, html = _page(app, "asked", "NO-CONSENT")
    refused = _post(browser, url, html, "NO-CONSENT")
    assert refused.status_code == 422
    assert refused.get_json()["errors"] == [
        "no consent was given: agree to the consent text before answering"
    ]
    other = _post(browser, url, html, "NO-CONSENT", consent="0" * 64, consentedAt="1")
    assert other.get_json()["errors"] == [
        "the consent given is to another text than this study's: reload the page"
    ]
    assert _judgments(engine, url) == 0


def test_the_consent_given_is_stored_with_the_assignment(asked):
    app, engine = asked
    browser, url, html = _page(app, "asked", "AGREES")
    given = round(utcnow().timestamp() * 1000) - 90_000
    digest = hashlib.sha256(CONSENT.encode()).hexdigest()
    assert f'"consent": "{digest}"' in html  # the page posts the hash of the text it shows
    posted = _post(browser, url, html, "AGREES", consent=digest, consentedAt=str(given))
    assert posted.status_code == 200, posted.get_json()
    text_hash, at = _consent_of(engine, url)
    assert text_hash == digest
    assert at.astimezone(UTC) == datetime.fromtimestamp(given / 1000, UTC)


def test_a_study_without_a_consent_stores_none(tmp_path):
    app, engine = _launched(tmp_path, "plain")
    try:
        browser, url, html = _page(app, "plain", "PLAIN")
        assert 'id="consent"' not in html and 'id="debrief"' not in html
        posted = _post(browser, url, html, "PLAIN", consent="f" * 64, consentedAt="1")
        assert posted.status_code == 200, posted.get_json()
        assert _consent_of(engine, url) == (None, None)
    finally:
        app.extensions["harness"].close()
        engine.dispose()
