"""Real headless Chromium: the page signals a task page posts beside its answers, read back
as MTurk returns them (an MTurk-hosted page in a frame, as the local MTurk service shows it)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from flask import Flask
from selenium.webdriver.common.by import By

from harness.page_signals import InputKind
from harness.render.answers import answers_from_xml
from harness.render.instrument import Instrument
from harness.render.pages import html_question
from harness.render.plan import plan_hits
from harness.spec import load_spec
from tests.browser import chromium
from tests.serving import ServedApp
from tests.web.factories import write_task_spec
from tests.web.person import answer_all
from tests.web.test_browser import accept, post_hit, submitted_answer, until_submitted

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.usefixtures("browser_available"),
]

HIDE_PAGE = """
Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
document.dispatchEvent(new Event("visibilitychange"));
"""
"""What a background tab looks like to the page (headless Chromium never hides one)."""


def _answered(mturk, tmp_path, before=None):
    """The answers an MTurk-hosted rating page posts after a person answers it; ``before``
    is run in the page first (the driver and the first card)."""
    loaded = load_spec(write_task_spec(tmp_path, "rating"))
    plan = plan_hits(loaded)[0]
    question = html_question(
        Instrument.from_loaded(loaded), plan, study_name="signals", submit_origins=(mturk.url,)
    )
    client, hit_id = post_hit(mturk, question)
    accepted = accept(mturk, hit_id, "AWORKER9")
    frame = Flask("frame")
    frame.add_url_rule("/frame", "frame", lambda: accepted["HTMLContent"])
    params = {
        "assignmentId": accepted["AssignmentId"],
        "hitId": hit_id,
        "workerId": "AWORKER9",
        "turkSubmitTo": mturk.url,
    }
    with ServedApp(frame) as served, chromium() as driver:
        driver.get(f"{served.url}/frame?{urlencode(params)}")
        assert "never what you type" in driver.find_element(By.ID, "signals-note").text
        if before is not None:
            before(driver, driver.find_element(By.CSS_SELECTOR, ".card"))
        answer_all(driver, "rating")
        until_submitted(driver)
    return answers_from_xml(submitted_answer(client, hit_id)["Answer"], plan)


@pytest.fixture
def mturk(tmp_path):
    from tests.providers.mturk.local_service.factories import LocalMTurk

    service = LocalMTurk(tmp_path / "mturk.sqlite", threaded=True).start()
    yield service
    service.stop()


def test_a_person_answering_leaves_signals_of_a_visible_page_and_their_input(mturk, tmp_path):
    def paste(driver, card):
        script = "arguments[0].dispatchEvent(new Event('paste', {bubbles: true}));"
        driver.execute_script(script, card)

    answers = _answered(mturk, tmp_path, before=paste)
    signals = [a.signals for a in answers]
    assert all(s is not None for s in signals)
    assert signals[0].pastes == 1 and all(s.pastes == 0 for s in signals[1:])
    assert all(s.visible_seconds > 0 and not s.answered_hidden for s in signals)
    assert all(s.hidden_seconds == 0 and s.hides == 0 for s in signals)
    assert {s.input_kind for s in signals} <= {
        InputKind.POINTER,
        InputKind.KEYBOARD,
        InputKind.BOTH,
    }


def test_answers_given_while_the_page_is_hidden_say_so(mturk, tmp_path):
    answers = _answered(
        mturk, tmp_path, before=lambda driver, _card: driver.execute_script(HIDE_PAGE)
    )
    assert all(a.signals is not None and a.signals.answered_hidden for a in answers)
    assert all(a.signals.visible_seconds == 0 for a in answers)
