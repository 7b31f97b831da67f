"""Real headless Chromium: a person answers every item of a HIT through the page, submits, and
the judgments (values, positions, timings) are in the store and MTurk has the assignment, for
every study type in both hosting modes. MTurk is harness's local MTurk service."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest
from flask import Flask
from sqlmodel import select

from harness.platform.verification import Verifier
from harness.render.answers import answers_from_xml
from harness.render.client_order import client_order
from harness.render.instrument import Instrument
from harness.render.pages import external_question, html_question
from harness.render.plan import plan_hits
from harness.render.validation import check_answers
from harness.spec import load_spec
from harness.store import session_scope, study_judgments
from harness.store.models import Hit
from tests.browser import PHONE, chromium
from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params
from tests.serving import ServedApp
from tests.web.factories import on_platform, plan_study, write_task_spec
from tests.web.person import ANSWER, answer_all, start, visible_card, wait

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.usefixtures("browser_available"),
]
KINDS = ["rating", "likert", "pair_comparison"]


@pytest.fixture
def mturk(tmp_path):
    # threaded: Chromium opens connections it may leave idle (a preconnect, a kept-alive
    # one); one thread would wait on them and every other client with it
    service = LocalMTurk(tmp_path / "mturk.sqlite", threaded=True).start()
    yield service
    service.stop()


def post_hit(mturk, question):
    client = mturk.client()
    return client, client.create_hit(**hit_params(Question=question))["HIT"]["HITId"]


def accept(mturk, hit_id, worker="AWORKER1"):
    response = mturk.post(f"/worker/hits/{hit_id}/accept", workerId=worker)
    assert response.status_code == 200, response.text
    return response.json()


def submitted_answer(client, hit_id):
    (assignment,) = client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    assert assignment["AssignmentStatus"] == "Submitted"
    return assignment


def until_stored(engine, seconds=300.0):
    """The study's judgments, once the task server's rechecks have verified the submission
    (their delays add up to about a minute)."""
    deadline = time.monotonic() + seconds
    while True:
        with session_scope(engine) as session:
            table = study_judgments(session, 1)
        if not table.empty or time.monotonic() > deadline:
            return table.sort_values("position").reset_index(drop=True)
        time.sleep(0.2)


def until_submitted(driver):
    """The page completed the assignment: the browser is on MTurk's externalSubmit answer."""
    wait(driver).until(lambda d: "/mturk/externalSubmit" in d.current_url)
    assert '"AssignmentStatus": "Submitted"' in driver.page_source.replace('":"', '": "')


@pytest.mark.parametrize("kind", KINDS)
def test_an_external_page_answered_in_chromium_ends_in_judgments_with_positions_and_timings(
    kind, engine, make_app, mturk, tmp_path
):
    study = plan_study(engine, write_task_spec(tmp_path, kind))
    on_platform(engine, study.name, "local", mturk.url)
    with ServedApp(make_app(verifier=Verifier())) as served:
        client, hit_id = post_hit(
            mturk, external_question(served.url, study_name=study.name, plan=study.plans[0])
        )
        with session_scope(engine) as session:
            hit = session.exec(select(Hit)).one()
            hit.platform_hit_id = hit_id
            session.add(hit)
        accepted = accept(mturk, hit_id)
        with chromium() as driver:
            driver.get(accepted["ExternalURL"])
            given = answer_all(driver, kind)
            until_submitted(driver)
            # MTurk vouches for the assignment once completed there: a recheck stores it
            table = until_stored(engine)

    n = len(study.plans[0].showings)
    assert table["position"].tolist() == list(range(n))
    assert table["item_id"].tolist() == given.keys
    assert table["skipped"].tolist() == given.skipped
    assert table["value"].astype(object).where(table["value"].notna(), None).tolist() == (
        given.values
    )
    assert sorted(given.keys) == sorted(study.plans[0].showings)
    assert (table["worker_id"] == "AWORKER1").all()
    assert (table["seconds"] > 0).all()
    assert table["shown_at"].is_monotonic_increasing
    # the page signals are stored with the judgments (tests/web/test_signals_browser.py)
    assert (table["visible_seconds"] > 0).all() and not table["answered_hidden"].any()
    if kind == "likert":
        assert given.reminders == 1  # the half-way reminder came once

    # the page also completed the assignment on MTurk, with the same answers
    parsed = answers_from_xml(submitted_answer(client, hit_id)["Answer"], study.plans[0])
    assert [a.item_key for a in parsed] == given.keys
    assert [a.value for a in parsed] == given.values


@pytest.mark.parametrize("kind", KINDS)
def test_an_mturk_hosted_page_posts_answers_and_timings_that_parse_back(kind, mturk, tmp_path):
    loaded = load_spec(write_task_spec(tmp_path, kind))
    plan = plan_hits(loaded)[0]
    instrument = Instrument.from_loaded(loaded)
    name = loaded.spec.study.name
    page = html_question(instrument, plan, study_name=name, submit_origins=(mturk.url,))
    client, hit_id = post_hit(mturk, page)
    accepted = accept(mturk, hit_id, "AWORKER7")

    frame = Flask("frame")  # what MTurk does: the HTMLContent in a frame, with its parameters
    frame.add_url_rule("/frame", "frame", lambda: accepted["HTMLContent"])
    params = {
        "assignmentId": accepted["AssignmentId"],
        "hitId": hit_id,
        "workerId": "AWORKER7",
        "turkSubmitTo": mturk.url,
    }
    with ServedApp(frame) as served, chromium() as driver:
        driver.get(f"{served.url}/frame?{urlencode(params)}")
        given = answer_all(driver, kind)
        until_submitted(driver)

    answers = answers_from_xml(submitted_answer(client, hit_id)["Answer"], plan)
    spec = loaded.spec
    gap = spec.controls.repeated.min_gap if spec.controls.repeated else 3
    order = client_order(
        plan, study_name=name, worker_id="AWORKER7", seed=spec.order.seed, min_gap=gap
    )
    assert [a.item_key for a in answers] == given.keys == order  # the script's order, in Python
    assert [a.position for a in answers] == list(range(len(order)))
    assert [a.value for a in answers] == given.values
    assert [a.skipped for a in answers] == given.skipped
    assert all(a.seconds is not None and a.seconds > 0 for a in answers)
    assert check_answers(instrument, plan, answers, worker_order=order) == []


def test_a_preview_in_chromium_is_read_only_and_asks_to_accept(engine, make_app, mturk, tmp_path):
    study = plan_study(engine, write_task_spec(tmp_path, "likert"))
    with ServedApp(make_app()) as served:
        _client, hit_id = post_hit(
            mturk, external_question(served.url, study_name=study.name, plan=study.plans[0])
        )
        preview = mturk.get(f"/worker/hits/{hit_id}", workerId="AWORKER1").json()
        with chromium(PHONE) as driver:
            driver.get(preview["ExternalURL"])
            banner = driver.find_element("id", "preview-banner")
            assert banner.is_displayed() and "Accept the HIT to start" in banner.text
            start(driver)
            card = visible_card(driver)
            inputs = card.find_elements("css selector", "input")
            assert inputs and all(not i.is_enabled() for i in inputs)
            assert not driver.find_element("id", "submit").is_displayed()
            driver.find_element("id", "next").click()  # looking through the items is allowed
            assert "item 2 of" in visible_card(driver).text.lower()


def test_a_reload_keeps_the_answers_given_so_far(engine, make_app, tmp_path):
    study = plan_study(engine, write_task_spec(tmp_path, "pair_comparison"))
    url_query = "assignmentId=A-RELOAD&hitId=H&workerId=WORKER2"
    with ServedApp(make_app()) as served, chromium() as driver:
        driver.get(f"{served.url}/hit/{study.key(0)}?{url_query}")
        start(driver)
        for position in range(2):
            ANSWER["pair_comparison"](driver, visible_card(driver), position)
            driver.find_element("id", "next").click()
        driver.refresh()
        card = visible_card(driver)  # straight back at the first unanswered item
        assert card.find_element("css selector", ".card-count").text.lower().startswith("item 3 ")
        driver.find_element("id", "back").click()
        chosen = visible_card(driver).find_elements("css selector", ".pair-choice input")
        assert [c.is_selected() for c in chosen] == [False, True, False]  # position 1: "equal"
        driver.find_element("id", "next").click()
        total = len(study.plans[0].showings)
        for position in range(2, total):
            ANSWER["pair_comparison"](driver, visible_card(driver), position)
            if position < total - 1:
                driver.find_element("id", "next").click()
        driver.find_element("id", "submit").click()
        wait(driver).until(lambda d: d.find_element("id", "done").is_displayed())
    with session_scope(engine) as session:
        table = study_judgments(session, 1).sort_values("position")
    assert table["value"].tolist() == [[1.0, 0.0, -1.0][p % 3] for p in range(total)]
    assert table["shown_at"].is_monotonic_increasing and (table["seconds"] > 0).all()
