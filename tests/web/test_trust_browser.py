"""Real headless Chromium: a ``javascript:`` turkSubmitTo put into a task link no longer runs
(issue 21, hole 3), neither on a page harness serves nor on a self-contained MTurk-hosted
page, and a worker who submits is told there is nowhere to submit instead; an MTurk-hosted
page completes the assignment only at MTurk's own site, refusing every turkSubmitTo the task
server refuses (issue 41, hole 3)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

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
from tests.web.test_trust import HOSTILE_SUBMIT_TO

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
    frame = mturk_frame(tmp_path, ("https://www.mturk.com",))
    params = {"assignmentId": "A1", "hitId": "H1", "workerId": "AW1", "turkSubmitTo": ATTACK}
    with ServedApp(frame) as served, chromium() as driver:
        driver.get(f"{served.url}/frame?{urlencode(params)}")
        answer_all(driver, "rating")
        messages = wait(driver).until(lambda d: d.find_element(By.ID, "messages"))
        wait(driver).until(lambda d: messages.is_displayed())
        assert "nowhere to submit" in messages.text
        assert "/frame" in driver.current_url and not pwned(driver)


def mturk_frame(directory, sites: tuple[str, ...]) -> Flask:
    """What MTurk does with a HIT's HTMLQuestion, completing only at ``sites``: its page in a
    frame (``/frame``), opened with MTurk's parameters."""
    loaded = load_spec(write_task_spec(directory, "rating"))
    plan = plan_hits(loaded)[0]
    page = html_question(
        Instrument.from_loaded(loaded), plan, study_name="words", submit_origins=sites
    )
    content = page.split("<![CDATA[", 1)[1].rsplit("]]>", 1)[0]
    frame = Flask("frame")
    frame.add_url_rule("/frame", "frame", lambda: content)
    return frame


LOCAL = "http://127.0.0.1:8765"  # a local MTurk service's address: the page's one site


def submits_to(driver, base: str, value: str) -> str:
    """Where the page opened with ``turkSubmitTo=value`` would complete the assignment."""
    params = {"assignmentId": "A1", "hitId": "H1", "workerId": "AW1", "turkSubmitTo": value}
    driver.get(f"{base}/frame?{urlencode(params)}")
    return driver.execute_script("return window.harnessTask.config.turkSubmitTo")


def test_an_mturk_hosted_page_ignores_every_turk_submit_to_the_task_server_refuses(tmp_path):
    values = [v.format(mturk=LOCAL, host=urlsplit(LOCAL).netloc) for v in HOSTILE_SUBMIT_TO]
    with ServedApp(mturk_frame(tmp_path, (LOCAL,))) as served, chromium() as driver:
        assert {v: submits_to(driver, served.url, v) for v in values} == dict.fromkeys(values, "")
        assert submits_to(driver, served.url, LOCAL) == LOCAL
        assert submits_to(driver, served.url, LOCAL + "/") == LOCAL
        assert not pwned(driver)


def test_an_mturk_hosted_page_completes_only_at_mturks_own_site(tmp_path):
    sites = ("https://www.mturk.com",)
    with ServedApp(mturk_frame(tmp_path, sites)) as served, chromium() as driver:
        for value in ("https://www.mturk.com", "HTTPS://WWW.MTurk.com:443/"):
            assert submits_to(driver, served.url, value) == "https://www.mturk.com"
        for value in (
            "https://www.mturk.com.evil.example",
            "https://evil.example",
            "https://workersandbox.mturk.com",  # the sandbox's site, for a production HIT
            "http://www.mturk.com",
            "https://www.mturk.com:8443",
        ):
            assert submits_to(driver, served.url, value) == "", value
