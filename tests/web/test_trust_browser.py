"""Real headless Chromium: a ``javascript:`` turkSubmitTo put into a task link no longer runs
(issue 21, hole 3), neither on a page harness serves nor on a self-contained MTurk-hosted
page, and a worker who submits is told there is nowhere to submit instead."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from flask import Flask
from selenium.webdriver.common.by import By

from harness.platform.verification import Verifier
from harness.render.instrument import Instrument
from harness.render.pages import html_question
from harness.render.plan import plan_hits
from harness.spec import load_spec
from tests.browser import chromium
from tests.serving import ServedApp
from tests.web.factories import on_platform, plan_study, write_task_spec
from tests.web.person import answer_all, wait

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.usefixtures("browser_available"),
]
ATTACK = "javascript:document.documentElement.setAttribute('data-pwned','yes')//"


def pwned(driver) -> bool:
    return driver.execute_script("return document.documentElement.dataset.pwned") == "yes"


def test_a_javascript_turk_submit_to_is_refused_by_the_task_server(engine, make_app, tmp_path):
    study = plan_study(engine, write_task_spec(tmp_path, "rating"))
    on_platform(engine, study.name, "local", "http://127.0.0.1:8765")
    params = {"assignmentId": "A1", "hitId": "H1", "workerId": "AW1", "turkSubmitTo": ATTACK}
    with ServedApp(make_app(verifier=Verifier())) as served, chromium() as driver:
        driver.get(f"{served.url}/hit/{study.key(0)}?{urlencode(params)}")
        assert driver.find_element(By.TAG_NAME, "h1").text == "Not opened from MTurk"
        assert driver.find_elements(By.TAG_NAME, "form") == []
        assert not pwned(driver)


def test_a_javascript_turk_submit_to_never_runs_on_an_mturk_hosted_page(tmp_path):
    loaded = load_spec(write_task_spec(tmp_path, "rating"))
    plan = plan_hits(loaded)[0]
    page = html_question(Instrument.from_loaded(loaded), plan, study_name="words")
    content = page.split("<![CDATA[", 1)[1].rsplit("]]>", 1)[0]
    frame = Flask("frame")  # what MTurk does: the HTMLContent in a frame, with its parameters
    frame.add_url_rule("/frame", "frame", lambda: content)
    params = {"assignmentId": "A1", "hitId": "H1", "workerId": "AW1", "turkSubmitTo": ATTACK}
    with ServedApp(frame) as served, chromium() as driver:
        driver.get(f"{served.url}/frame?{urlencode(params)}")
        answer_all(driver, "rating")
        messages = wait(driver).until(lambda d: d.find_element(By.ID, "messages"))
        wait(driver).until(lambda d: messages.is_displayed())
        assert "nowhere to submit" in messages.text
        assert "/frame" in driver.current_url and not pwned(driver)
