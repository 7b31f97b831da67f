"""A participant withdraws from a study at any point, through the real CLI and task server on
a study link: recorded once, their judgments out of analysis and export (kept only as the
record), their place freed, and the study not taken again; only with the page's own token and
browser. Prolific's return request is in tests/web/test_accessibility.py (a real browser and
the local Prolific service)."""

from __future__ import annotations

import pandas as pd
import pytest
from sqlmodel import select

from harness.store import session_scope, study_judgments
from harness.store.models import (
    Event,
    EventKind,
    Judgment,
    Slot,
    SlotState,
    Withdrawal,
    Worker,
)
from harness.store.studies import find_study
from harness.store.withdrawals import has_withdrawn
from harness.web.withdrawals import WITHDRAWN
from tests.platform.factories import harness_cli
from tests.web.factories import launched_link
from tests.web.fuzzing import page_fields, token_in_page


@pytest.fixture(scope="module")
def link(tmp_path_factory):
    yield from launched_link(tmp_path_factory.mktemp("withdraw"))


def _start(browser, participant):
    arrived = browser.get(f"/p/small?participant={participant}")
    assert arrived.status_code == 303, arrived.get_data(as_text=True)
    url = arrived.headers["Location"]
    return url, browser.get(url).get_data(as_text=True)


def _withdraw(browser, url, html, participant, **changes):
    fields = {"workerId": participant, "pageToken": token_in_page(html)} | changes
    return browser.post(f"{url}/withdraw", data=fields)


def _study(session):
    return find_study(session, "small")


def test_a_participant_who_withdraws_is_recorded_once_and_frees_the_place(link):
    app, engine = link
    browser = app.test_client()
    url, html = _start(browser, "W1")
    answer = _withdraw(browser, url, html, "W1")
    assert answer.status_code == 200
    assert answer.json == {"ok": True, "message": WITHDRAWN}  # a link: no platform to tell
    assert _withdraw(browser, url, html, "W1").status_code == 200  # again: nothing new
    ref = url.rsplit("/", 1)[1]
    with session_scope(engine) as session:
        study = _study(session)
        assert has_withdrawn(session, study.id, "W1")
        kinds = session.exec(
            select(Event.kind).where(Event.subject == ref).order_by(Event.id)
        ).all()
        assert kinds.count(EventKind.PARTICIPANT_WITHDREW) == 1
        slot = session.exec(select(Slot).where(Slot.session_ref == ref)).first()
        assert slot is None or slot.state is SlotState.OPEN
    again = browser.get("/p/small?participant=W1")
    assert again.status_code == 200
    assert "You withdrew from this study, so it cannot be taken again." in again.get_data(
        as_text=True
    )


def test_a_withdrawn_participant_s_judgments_leave_analysis_and_export(link, tmp_path):
    """W2 submits a part, starts another and withdraws; W0 submits and stays."""
    app, engine = link
    stays = app.test_client()
    url, html = _start(stays, "W0")
    assert stays.post(f"{url}/submit", data=dict(page_fields(html, "W0", url.split("/")[-1]))).json[
        "ok"
    ]
    browser = app.test_client()
    url, html = _start(browser, "W2")
    posted = browser.post(f"{url}/submit", data=dict(page_fields(html, "W2", url.split("/")[-1])))
    assert posted.status_code == 200, posted.json
    more = browser.get(posted.json["next"]).get_data(as_text=True)  # the completion page
    assert "Do another part" in more
    second, second_html = _start(browser, "W2")
    with session_scope(engine) as session:
        assert set(study_judgments(session, _study(session).id)["worker_id"]) >= {"W2"}
    assert _withdraw(browser, second, second_html, "W2").status_code == 200
    with session_scope(engine) as session:
        assert "W2" not in set(study_judgments(session, _study(session).id)["worker_id"])
        kept = session.exec(
            select(Judgment).join(Worker).where(Worker.platform_worker_id == "W2")
        ).all()
        assert len(kept) == 2  # the record: nothing deleted
    with session_scope(engine) as session:
        study_id = _study(session).id
        left = len(session.exec(select(Withdrawal).where(Withdrawal.study_id == study_id)).all())
    status = harness_cli("status", "small", "--db", str(engine.url))
    assert (
        f"  withdrawn: {left} participants (their judgments are left out of analysis and export)"
        in status.output.splitlines()
    )
    out = tmp_path / "small.csv"
    exported = harness_cli("export", "small", "--db", str(engine.url), "--out", str(out))
    assert exported.exit_code == 0, exported.output
    workers = set(pd.read_csv(out)["worker_id"])
    assert workers and "W2" not in workers


def test_a_withdrawal_without_the_page_s_token_or_browser_changes_nothing(link):
    app, engine = link
    browser = app.test_client()
    url, html = _start(browser, "W3")
    forged = _withdraw(browser, url, html, "W3", pageToken="x")
    assert forged.status_code == 403
    stranger = _withdraw(app.test_client(), url, html, "W3")
    assert stranger.status_code == 403
    with session_scope(engine) as session:
        assert not has_withdrawn(session, _study(session).id, "W3")
