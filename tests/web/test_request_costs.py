"""What a page load and a submission cost the store, bounded: once a study is launched and its
HITs posted, the task server reads only what can change (whose the assignment is) and writes a
submission in a handful of statements. What it keeps between requests is never wrong: a HIT
posted or added after the first page, or a study launched after it, is read again."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from harness.platform.verification import Verifier
from harness.store import session_scope
from harness.store.hits import add_planned_hits, study_hit
from harness.store.models import Study
from tests.web.factories import on_platform, plan_study, write_task_spec
from tests.web.test_task_server import fields, page_url, submit

SITE = "http://127.0.0.1:9"  # the local MTurk service the study is launched on
# upper bounds, a little above what is sent now (in brackets), below what reading the study
# or the HIT again on every request would add
PAGE_STATEMENTS = 3  # whose the assignment is: stored, or quarantined (1)
QUARANTINE_STATEMENTS = 5  # whose the assignment is; the quarantined answers inserted (one
# insert, on conflict nothing) and their event; the platform is not asked (3)
SUBMIT_STATEMENTS = 10  # whose it is; the HIT; the assignment and the worker read, both
# inserted; the judgments (one insert of many rows) and the submission's event (8)


class Statements:
    """The statements an engine sends."""

    def __init__(self, engine):
        self.sent = []
        sa.event.listen(engine, "before_cursor_execute", self._sent)

    def _sent(self, _conn, _cursor, statement, *_args):
        self.sent.append(" ".join(statement.split())[:90])

    def during(self, run):
        before = len(self.sent)
        result = run()
        return result, self.sent[before:]


def _post(engine, study, index, platform_id):
    with session_scope(engine) as session:
        found = session.exec(sa.select(Study).where(Study.name == study.name)).scalar_one()
        hit = study_hit(session, found.id, index)
        hit.platform_hit_id = platform_id
        session.add(hit)


@pytest.fixture
def launched(engine, tmp_path):
    """The rating study launched on the local MTurk service, its HIT 0 posted as PH0."""
    study = plan_study(engine, write_task_spec(tmp_path, "rating"))
    on_platform(engine, study.name, "local", SITE)
    _post(engine, study, 0, "PH0")
    return study


@pytest.fixture
def app_and_statements(make_app):
    app = make_app()
    return app, Statements(app.extensions["harness"].engine)


def _page(client, study, assignment, worker, **extra):
    params = {"hitId": "PH0", "turkSubmitTo": SITE, **extra}
    return client.get(page_url(study, assignment, worker, **params))


def test_a_page_load_and_a_submission_send_a_bounded_number_of_statements(
    launched, app_and_statements
):
    app, statements = app_and_statements
    client = app.test_client()
    assert _page(client, launched, "A0", "W0").status_code == 200  # the first reads the study,
    submit(client, launched, fields(launched, "A0", "W0", hitId="PH0"))  # its HIT and items
    response, page = statements.during(lambda: _page(client, launched, "A1", "W1"))
    assert response.status_code == 200
    assert len(page) <= PAGE_STATEMENTS, "\n".join(page)
    data = fields(launched, "A1", "W1", hitId="PH0")
    response, posted = statements.during(lambda: submit(client, launched, data))
    assert response.json["created"] is True
    assert len(posted) <= SUBMIT_STATEMENTS, "\n".join(posted)
    data = fields(launched, "A2", "W1", hitId="PH0")  # a worker already known: not inserted
    _response, again = statements.during(lambda: submit(client, launched, data))
    assert len(again) < len(posted), "\n".join(again)


def test_a_hit_posted_after_its_first_page_is_checked_against_its_platform_id(
    engine, tmp_path, make_app
):
    study = plan_study(engine, write_task_spec(tmp_path, "rating"))
    on_platform(engine, study.name, "local", SITE)
    client = make_app().test_client()
    assert _page(client, study, "A1", "W1", hitId="ELSEWHERE").status_code == 200  # not posted
    _post(engine, study, 0, "PH0")
    response = _page(client, study, "A1", "W1", hitId="ELSEWHERE")
    assert response.status_code == 400 and "another HIT" in response.get_data(as_text=True)
    assert _page(client, study, "A1", "W1").status_code == 200


def test_a_hit_added_by_a_later_launch_is_found(engine, launched, make_app):
    client = make_app().test_client()
    assert _page(client, launched, "A1", "W1").status_code == 200
    added = launched.plans[0].showings  # a new HIT (index 1) with the items of HIT 0
    new_key = launched.key(1)
    assert client.get(f"/hit/{new_key}?assignmentId=A2&workerId=W2").status_code == 404
    with session_scope(engine) as session:
        study = session.exec(sa.select(Study).where(Study.name == launched.name)).scalar_one()
        add_planned_hits(session, study, [launched.plans[0].showings, added], 3)
    _post(engine, launched, 1, "PH1")
    response = client.get(f"/hit/{new_key}?assignmentId=A2&workerId=W2&hitId=PH1")
    assert response.status_code == 200


def test_a_study_launched_after_its_first_page_takes_its_platforms_site(engine, tmp_path, make_app):
    study = plan_study(engine, write_task_spec(tmp_path, "rating"))
    client = make_app().test_client()
    refused = _page(client, study, "A1", "W1", hitId="HIT1")
    assert refused.status_code == 400 and "not opened" in refused.get_data(as_text=True).lower()
    on_platform(engine, study.name, "local", SITE)
    assert _page(client, study, "A1", "W1", hitId="HIT1").status_code == 200


def test_a_quarantined_submission_sends_a_bounded_number_of_statements(launched, make_app):
    """With the platform's verifier (MTurk cannot vouch for an assignment before its page posts
    the answers), a submission is quarantined in a handful of statements and asks nothing."""
    app = make_app(verifier=Verifier())
    app.extensions["harness.trust"].rechecks.close()  # no recheck of this test's fake HIT
    statements = Statements(app.extensions["harness"].engine)
    client = app.test_client()
    assert _page(client, launched, "A0", "W0").status_code == 200
    submit(client, launched, fields(launched, "A0", "W0", hitId="PH0"))  # reads the study once
    data = fields(launched, "A1", "W1", hitId="PH0")
    response, posted = statements.during(lambda: submit(client, launched, data))
    assert response.json["created"] is True and response.json["verified"] is False
    assert len(posted) <= QUARANTINE_STATEMENTS, "\n".join(posted)
    _response, again = statements.during(lambda: submit(client, launched, data))
    assert _response.json["created"] is False
    assert len(again) <= 2, "\n".join(again)  # recorded already: whose it is, nothing written


def test_what_is_kept_outlives_the_request_that_read_it_failing(launched, make_app):
    # the first request for a posted HIT keeps what it read; its transaction then fails (the
    # database connection dropped): every later request for the HIT must still be served
    app = make_app()
    state = app.extensions["harness"]
    with Session(state.engine) as session:
        kept = state.task_hit(session, launched.key(0))
        session.rollback()
    assert kept.hit.platform_hit_id == "PH0" and kept.study.name == launched.name
    client = app.test_client()
    assert _page(client, launched, "A0", "W0").status_code == 200
    assert submit(client, launched, fields(launched, "A0", "W0")).status_code == 200
