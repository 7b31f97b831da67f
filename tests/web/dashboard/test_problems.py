"""A screening failure is an event the dashboard shows, not a line on stderr: the study page (in
a real Chromium) and `harness status --watch` say what failed, when, and how many stored
assignments wait to be screened, however many events came since; once screening works again
the count falls to zero."""

from __future__ import annotations

import re
from typing import Any

import pytest

from harness.platform.submissions.after_submission import catch_up, hook
from harness.store import make_engine
from harness.store.models import EventKind
from tests.browser import chromium
from tests.platform.factories import harness_cli
from tests.web.dashboard.factories import PASSWORD, STUDY, events
from tests.web.dashboard.test_browser import wait_for

DROPPED = "ConnectionError: the database connection was dropped"


def problem_text(driver: Any) -> str:
    """The screening-failure notice ("" while the event stream replaces it)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        found = driver.find_elements("css selector", ".problem")
        kinds = {p.get_attribute("data-kind"): p.text for p in found}
    except StaleElementReferenceException:
        return ""
    return str(kinds.get("assignment.after_submission_failed", ""))


@pytest.mark.slow
def test_a_screening_failure_is_shown_until_the_assignments_are_screened(
    live, monkeypatch, browser_available
):
    def broken(_engine, _study):
        raise ConnectionError("the database connection was dropped")

    monkeypatch.setattr("harness.screening.live.screen_pending", broken)
    report = live.crowd(rounds=1)
    stored = len(report.submitted)
    assert stored
    with chromium() as driver:
        driver.get(f"{live.url}/dashboard/login")
        driver.find_element("id", "password").send_keys(PASSWORD)
        driver.find_element("id", "login").click()
        wait_for(lambda: "Studies" in driver.title, "the studies list after logging in")
        driver.get(f"{live.url}/dashboard/study/{STUDY}")
        # a failed look may cover several assignments (a recheck settles a HIT's at once):
        # the page counts the failures logged, however many assignments each one left
        failed = EventKind.AFTER_SUBMISSION_FAILED
        wait_for(
            lambda: (
                f"Live screening failed {len(events(live.db, failed))} times, the latest "
                in problem_text(driver)
            ),
            "the page to count every failure logged",
        )
        shown = problem_text(driver)
        assert int(re.match(r"Live screening failed (\d+) times", shown).group(1)) >= 1
        assert f": {DROPPED}. Stored assignments not screened yet: {stored}." in shown
        assert "screens them again within seconds" in shown
        watched = harness_cli("status", STUDY, "--db", live.db, "--watch", "--updates", "1")
        assert re.search(r"  live screening failed: [1-9]\d* times, the latest at ", watched.output)
        assert f"({DROPPED}); {stored} stored assignments not screened yet" in watched.output

        monkeypatch.undo()  # the database is back: the task server's next look screens them
        engine = make_engine(live.db)
        try:
            assert catch_up(engine, hook(True), acting=True) == {1: None}
        finally:
            engine.dispose()
        wait_for(lambda: "not screened yet: 0." in problem_text(driver), "the page to update")
