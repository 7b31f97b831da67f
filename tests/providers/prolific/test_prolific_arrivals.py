"""A participant starts only with a session Prolific started for them, on this study (issue 21:
forged ids): the task server asks the local Prolific service before giving out a slot."""

from __future__ import annotations

from urllib.parse import urlsplit

import requests
from sqlmodel import func, select

from harness.platform.verification import Verifier
from harness.store import make_engine, session_scope
from harness.store.models import Slot, SlotState
from harness.web import create_app


def joined(prolific, pid):
    """Join the launched study as participant ``pid``: the study URL Prolific sends them to."""
    studies = requests.get(
        f"{prolific.url}/api/v1/studies/", timeout=5, headers={"Authorization": "Token local"}
    ).json()
    (study,) = studies["results"]
    answer = requests.post(
        f"{prolific.url}/participant/studies/{study['id']}/join",
        json={"participant_id": pid},
        timeout=5,
    )
    assert answer.status_code == 201, answer.text
    url = urlsplit(answer.json()["study_url"])
    return f"{url.path}?{url.query}"


def reserved(db):
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return session.exec(
                select(func.count()).select_from(Slot).where(Slot.state == SlotState.RESERVED)
            ).one()
    finally:
        engine.dispose()


def test_only_sessions_prolific_started_get_a_place(prolific, launched):
    _spec, db, _output = launched
    app = create_app(db, verifier=Verifier())
    client = app.test_client()
    try:
        real = joined(prolific, "PREAL0001")
        study = real.split("STUDY_ID=")[1].split("&")[0]
        forged = client.get(f"/p/small?PROLIFIC_PID=PFAKE&STUDY_ID={study}&SESSION_ID=S0FAKE")
        assert forged.status_code == 403
        assert "Prolific has no session S0FAKE" in forged.get_data(as_text=True)
        stolen = client.get(real.replace("PREAL0001", "PTHIEF0001"))  # another's session
        assert stolen.status_code == 403
        assert "is someone else&#39;s" in stolen.get_data(as_text=True)
        assert reserved(db) == 0
        arrived = client.get(real)
        assert arrived.status_code == 303, arrived.get_data(as_text=True)
        assert reserved(db) == 1
    finally:
        app.extensions["harness"].close()


def test_a_sessions_page_leaked_to_another_browser_stores_nothing(prolific, launched):
    """Issue 41: PC's task page opened and posted from another browser with its token is
    refused; PC's own submission afterwards is the one stored."""
    from harness.web.browsers import REFUSED
    from tests.web.fuzzing import page_fields

    _spec, db, _output = launched
    app = create_app(db, verifier=Verifier())
    pc, other = app.test_client(), app.test_client()
    try:
        arrived = pc.get(joined(prolific, "PCPC00001"))
        assert arrived.status_code == 303, arrived.get_data(as_text=True)
        page_url = arrived.headers["Location"]
        html = pc.get(page_url).get_data(as_text=True)
        data = dict(page_fields(html, "PCPC00001", page_url.rsplit("/", 1)[1]))
        assert other.get(page_url).status_code == 403
        stolen = other.post(f"{page_url}/submit", data=data)
        assert stolen.status_code == 403 and stolen.json["errors"] == [REFUSED]
        mine = pc.post(f"{page_url}/submit", data=data)
        assert mine.status_code == 200 and mine.json["created"] is True, mine.json
    finally:
        app.extensions["harness"].close()
