"""The dashboard in a real Chromium: a study page shows a simulated crowd's submissions,
alpha and live screening's blocks as they happen, without reloading; a worker blocked by a
click is refused their next task by the platform. One study, server and browser for the
module."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from harness.providers.mturk.crowd import mturk_worker_id
from harness.simulate.archetypes import Archetype
from tests.browser import chromium, chromium_available
from tests.web.dashboard.factories import PASSWORD, STUDY, LiveStudy

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="Chromium or chromedriver not found (run scripts/setup.sh)"
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStudy]:
    study = LiveStudy(tmp_path_factory.mktemp("dashboard"), items=40).start()
    yield study
    study.stop()


@pytest.fixture(scope="module")
def browser(live: LiveStudy) -> Iterator[Any]:
    with chromium() as driver:
        driver.get(f"{live.url}/dashboard/login")
        driver.find_element("id", "password").send_keys(PASSWORD)
        driver.find_element("id", "login").click()
        wait_for(lambda: "Studies" in driver.title, "the studies list after logging in")
        yield driver


def wait_for(check: Any, what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"waited {seconds:g} s for {what}")


def text(driver: Any, element_id: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('{element_id}').textContent"))


@pytest.mark.slow
def test_submissions_alpha_and_a_live_block_appear_without_reloading(live, browser):
    browser.get(f"{live.url}/dashboard/study/{STUDY}")
    wait_for(lambda: text(browser, "live") == "live", "the event stream to connect")
    assert text(browser, "fig-assignments") == "0"
    assert text(browser, "fig-alpha") == "not yet"
    browser.execute_script("window.notReloaded = true;")
    done: list[Any] = []
    crowd = threading.Thread(target=lambda: done.append(live.crowd(rounds=2)))
    crowd.start()
    try:
        wait_for(lambda: text(browser, "fig-submitted") not in ("0", "1"), "submissions arriving")
        wait_for(lambda: text(browser, "fig-alpha") != "not yet", "alpha on the page")
        wait_for(lambda: text(browser, "fig-blocked") != "0", "a live block on the page")
    finally:
        crowd.join()
    submitted = str(len(done[0].submitted))
    wait_for(lambda: text(browser, "fig-submitted") == submitted, f"{submitted} submissions")
    assert browser.execute_script("return window.notReloaded === true;")
    assert "[" in text(browser, "fig-alpha")  # with its interval
    blocked = browser.execute_script(  # read in one go: the stream may replace the rows
        "return Array.from(document.querySelectorAll('#workers tr.blocked'))"
        ".map(function (r) { return r.textContent; });"
    )
    assert blocked and "by live screening" in blocked[0]
    kinds = set(
        browser.execute_script(
            "return Array.from(document.querySelectorAll('.event')).map(function (e) "
            "{ return e.dataset.kind; });"
        )
    )
    assert {"assignment.submitted", "screening.decision", "worker.blocked"} <= kinds


@pytest.mark.slow
def test_a_worker_blocked_by_a_click_is_refused_their_next_task(live, browser):
    client = live.mturk.client()
    careful = next(w for w in live.workers() if w.archetype is Archetype.CAREFUL)
    worker = mturk_worker_id(careful.worker_id)
    # a HIT of their own first, so they are on the page whichever test ran before on this
    # worker (screening has no cause to block a careful worker)
    live.crowd(workers=[careful], rounds=1)
    assert acceptable(live, worker)  # HITs are left for them
    browser.get(f"{live.url}/dashboard/study/{STUDY}")
    wait_for(lambda: clicked(browser, f'.block-button[data-worker="{worker}"]'), "the click")
    wait_for(lambda: f"Blocked {worker}." in browser.page_source, "the block to be confirmed")
    wait_for(lambda: "by a person (dashboard)" in text(browser, f"worker-{worker}"), "who blocked")
    assert acceptable(live, worker) == []
    hit = client.list_hits()["HITs"][0]["HITId"]
    refused = live.mturk.post(f"/worker/hits/{hit}/accept", workerId=worker)
    assert refused.status_code != 200
    others = [mturk_worker_id(w.worker_id) for w in live.workers()]
    others.remove(worker)
    assert any(acceptable(live, other) for other in others)  # the others still work


def clicked(driver: Any, selector: str) -> bool:
    """Click the element, False when the event stream replaced it between finding and
    clicking (the workers table is re-rendered as figures arrive)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        driver.find_element("css selector", selector).click()
    except StaleElementReferenceException:
        return False
    return True


def acceptable(live: LiveStudy, worker: str) -> list[str]:
    listed = live.mturk.get("/worker/hits", workerId=worker, acceptable=1).json()["HITs"]
    return [h["HITId"] for h in listed if h["canAccept"]]
