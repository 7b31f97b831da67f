"""A study link end to end through the real CLI and task server: launch prints the study URL,
participants arrive with an id (or get one), are allocated slots, answer the usual pages, get a
completion code; screening blocks refuse allocation; review records what is owed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from harness.answer import Answer
from harness.render.answers import encode_answers
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan
from harness.spec import load_spec
from harness.store import make_engine, session_scope, study_judgments
from harness.store.events import EventKind, record_event
from harness.store.migrations import upgrade
from harness.store.models import Hit
from harness.web.tokens import token_in_page
from tests.clock import minutes_ago
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec

T0 = minutes_ago()


@pytest.fixture
def launched(tmp_path):
    spec = small_spec(tmp_path, hosting="external")
    db = migrated_sqlite(tmp_path / "h.db")
    qr = tmp_path / "study.png"
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "link",
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
        "--qr",
        str(qr),
    )
    assert result.exit_code == 0, result.output
    return spec, db, result.output, qr


def _client(db):
    from harness.web import create_app

    upgrade(db)
    app = create_app(db)
    return app, app.test_client()


def _answers(loaded, items, index, worker):
    plan = HitPlan.from_showings(index, items)
    order = Instrument.from_loaded(loaded).page_order(
        plan, study_name="small", worker_id=worker, hosting="external"
    )
    return [
        Answer(
            k,
            p,
            6.0,
            shown_at=T0 + timedelta(seconds=9 * p),
            answered_at=T0 + timedelta(seconds=9 * p + 5),
        )
        for p, k in enumerate(order)
    ]


def _do_one(client, db, loaded, worker):
    """Arrive as ``worker``, answer the page, submit; the JSON answer."""
    arrived = client.get(f"/p/small?participant={worker}")
    assert arrived.status_code == 303, arrived.get_data(as_text=True)
    page_url = arrived.headers["Location"]
    ref = page_url.rsplit("/", 1)[1]
    page = client.get(page_url)
    assert page.status_code == 200
    keys = re.findall(r'<section class="card" data-key="([^"]*)"', page.get_data(as_text=True))
    engine = make_engine(db)
    with session_scope(engine) as session:
        from sqlmodel import select

        from harness.store.models import Slot

        slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
        hit = session.get(Hit, slot.hit_id)
        index, items = hit.index, list(hit.items)
    engine.dispose()
    answers = _answers(loaded, items, index, worker)
    assert [a.item_key for a in answers] == keys
    data = encode_answers(answers) | {
        "workerId": worker,
        "assignmentId": ref,
        "pageToken": token_in_page(page.get_data(as_text=True)),
    }
    return ref, client.post(f"{page_url}/submit", data=data)


def test_launch_prints_the_study_url_and_its_qr_code(launched):
    _spec, _db, output, qr = launched
    assert "study small on link" in output
    assert "cost: $0.80 = $0.80 rewards + $0.00 fees" in output
    assert "small: 4 HITs on link (4 posted now, 0 found again, 0 posted before)" in output
    assert "study URL: http://tasks.test/p/small" in output
    assert qr.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_participants_do_every_slot_once_then_the_study_is_full(launched):
    spec, db, _output, _qr = launched
    loaded = load_spec(spec)
    app, client = _client(db)
    codes = set()
    for worker in ("P1", "P2"):
        for _ in range(4):  # 4 HITs, 2 raters each: each participant can do all 4
            ref, answer = _do_one(client, db, loaded, worker)
            assert answer.status_code == 200, answer.get_data(as_text=True)
            assert answer.json["ok"] and answer.json["next"] == f"/p/small/done/{ref}"
            done = client.get(answer.json["next"]).get_data(as_text=True)
            codes.add(re.search(r'id="completion-code">([A-Z0-9]+)<', done)[1])
            assert 'href="/p/small?participant=' + worker + '"' in done
    assert len(codes) == 1
    full = client.get("/p/small?participant=P3")
    assert "There is no work left in this study for you right now" in full.get_data(as_text=True)
    again = client.get("/p/small?participant=P1")
    assert "There is no work left" in again.get_data(as_text=True)
    app.extensions["harness"].close()
    engine = make_engine(db)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
    engine.dispose()
    assert table.groupby("item_id")["worker_id"].nunique().tolist() == [2] * 8
    reviewed = harness_cli("review", "small", "--db", db)
    assert reviewed.exit_code == 0, reviewed.output
    assert reviewed.output.strip().endswith("small: approve 8")
    status = harness_cli("status", "small", "--db", db)
    assert "money: committed $0.80, spent $0.80" in status.output
    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output


def test_an_anonymous_participant_gets_an_id_and_a_blocked_one_is_refused(launched):
    spec, db, _output, _qr = launched
    app, client = _client(db)
    anonymous = client.get("/p/small")
    assert anonymous.status_code == 303
    assert re.search(r"/p/small\?participant=anon-[0-9a-f]{16}$", anonymous.headers["Location"])
    engine = make_engine(db)
    with session_scope(engine) as session:
        record_event(session, EventKind.BLOCKED, study_id=1, subject="P9")
    engine.dispose()
    blocked = client.get("/p/small?participant=P9").get_data(as_text=True)
    assert "You cannot take part in this study any more." in blocked
    bad = client.get("/p/small?participant=%3Cscript%3E")
    assert bad.status_code == 400
    assert "an id is 1 to 100 letters, digits or . _ @ + -" in bad.get_data(as_text=True)
    app.extensions["harness"].close()


def test_answers_after_the_place_went_to_someone_else_are_refused(launched, monkeypatch):
    spec, db, _output, _qr = launched
    app, client = _client(db)
    arrived = client.get("/p/small?participant=P1")
    ref = arrived.headers["Location"].rsplit("/", 1)[1]
    engine = make_engine(db)
    with session_scope(engine) as session:  # P1's reservation ran out and went to P2
        from sqlmodel import select

        from harness.store.models import Slot

        slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
        slot.session_ref = "L-SOMEONE-ELSE"
        session.add(slot)
    engine.dispose()
    token = app.extensions["harness.trust"].keys.sign(
        "slot", unit="small", assignment_id=ref, worker_id="P1"
    )  # the page P1 had
    late = client.post(f"/p/small/s/{ref}/submit", data={"workerId": "P1", "pageToken": token})
    assert late.status_code == 404
    assert late.json["errors"] == [
        "This task link is not valid here; your answers were not stored."
    ]
    app.extensions["harness"].close()


def test_a_study_expired_while_its_server_runs_closes_its_link_there_at_once(launched):
    # the server keeps a study's row between requests; its status is read afresh each time
    spec, db, _output, _qr = launched
    app, client = _client(db)
    ref, answer = _do_one(client, db, load_spec(spec), "P1")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    expired = harness_cli("expire", "small", "--db", db)
    assert expired.exit_code == 0, expired.output
    closed = client.get("/p/small?participant=P2")
    assert closed.status_code == 410
    assert "This study is closed. Thank you." in closed.get_data(as_text=True)
    assert client.get(f"/p/small/done/{ref}").status_code == 200  # what was done stays done
    app.extensions["harness"].close()
