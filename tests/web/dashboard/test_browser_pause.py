"""Pausing from the study page in a real Chromium, on Prolific (the local service): the button
pauses the Prolific study, and the study's state on an open page follows a pause or resume
made elsewhere (the command line) without reloading."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.browser import chromium, chromium_available
from tests.platform.factories import harness_cli
from tests.web.dashboard.factories import PASSWORD, STUDY, LivePlacesStudy
from tests.web.dashboard.test_browser import clicked, text, wait_for

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="Chromium or chromedriver not found (run scripts/setup.sh)"
)


@pytest.fixture
def live(tmp_path: Any) -> Iterator[LivePlacesStudy]:
    study = LivePlacesStudy(tmp_path, "prolific-local").start()
    yield study
    study.stop()


def on_prolific(live: LivePlacesStudy) -> str:
    got = requests.get(
        f"{live.endpoint}/api/v1/studies/", timeout=10, headers={"Authorization": "Token local"}
    )
    [study] = got.json()["results"]
    return str(study["status"])


def present(driver: Any, element_id: str) -> bool:
    return bool(driver.execute_script(f"return !!document.getElementById('{element_id}');"))


@pytest.mark.slow
def test_the_pause_button_pauses_prolific_and_the_state_follows_live(live):
    with chromium() as browser:
        browser.get(f"{live.url}/dashboard/login")
        browser.find_element("id", "password").send_keys(PASSWORD)
        browser.find_element("id", "login").click()
        wait_for(lambda: "Studies" in browser.title, "the studies list after logging in")
        browser.get(f"{live.url}/dashboard/study/{STUDY}")
        wait_for(lambda: text(browser, "live") == "live", "the event stream to connect")
        assert text(browser, "fig-state") == "running"

        wait_for(lambda: clicked(browser, "#pause-button"), "the click on Pause")
        wait_for(
            lambda: "Paused: Prolific stops showing the study" in browser.page_source,
            "the pause to be confirmed",
        )
        assert text(browser, "fig-state") == "paused"
        assert present(browser, "resume-button") and not present(browser, "pause-button")
        assert on_prolific(live) == "PAUSED"

        wait_for(lambda: text(browser, "live") == "live", "the event stream to connect again")
        browser.execute_script("window.notReloaded = true;")
        resumed = harness_cli("resume", STUDY, "--db", live.db)
        assert resumed.exit_code == 0, resumed.output
        wait_for(lambda: text(browser, "fig-state") == "running", "the resume shown live")
        assert present(browser, "pause-button") and not present(browser, "resume-button")
        assert on_prolific(live) == "ACTIVE"
        paused = harness_cli("pause", STUDY, "--db", live.db)
        assert paused.exit_code == 0, paused.output
        wait_for(lambda: text(browser, "fig-state") == "paused", "a pause shown live")
        assert "nobody new starts" in text(browser, "section-progress")
        assert browser.execute_script("return window.notReloaded === true;")
