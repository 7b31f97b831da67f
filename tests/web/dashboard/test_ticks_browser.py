"""Ticks on the list of submissions awaiting review are kept while a person pages through it,
in a real Chromium: boxes ticked on page 1 are still ticked after a visit to page 2, the page
says how many are ticked elsewhere, and Approve ticked approves those of every page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus
from harness.web.dashboard import create_dashboard_app
from tests.browser import chromium, chromium_available
from tests.factories import migrated_sqlite
from tests.serving import ServedApp
from tests.web.dashboard.factories import PASSWORD, SETTINGS, STUDY
from tests.web.dashboard.stored import stored_study
from tests.web.dashboard.test_browser import wait_for

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="Chromium or chromedriver not found (run scripts/setup.sh)"
)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The dashboard on a study with 120 submissions awaiting review (3 pages): its address
    and its store."""
    db = stored_study(tmp_path, 120, migrated_sqlite(tmp_path / "harness.db")).db
    app = create_dashboard_app(db, SETTINGS)
    server = ServedApp(app).start()
    try:
        yield server.url, db
    finally:
        server.stop()
        app.extensions["harness.web.dashboard"].close()


def approved(db: str) -> list[str]:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            rows = session.exec(
                select(Assignment.platform_assignment_id).where(
                    Assignment.status == AssignmentStatus.APPROVED
                )
            ).all()
    finally:
        engine.dispose()
    return sorted(rows)


def box(driver: Any, aid: str) -> Any:
    return driver.find_element("css selector", f'input[type="checkbox"][value="{aid}"]')


@pytest.mark.slow
def test_ticks_are_kept_across_pages_and_approve_ticked_acts_on_every_page(served):
    url, db = served
    with chromium() as driver:
        driver.get(f"{url}/dashboard/login")
        driver.find_element("id", "password").send_keys(PASSWORD)
        driver.find_element("id", "login").click()
        wait_for(lambda: "Studies" in driver.title, "the studies list after logging in")
        driver.get(f"{url}/dashboard/study/{STUDY}/submissions?page=1")
        box(driver, "A0000").click()
        box(driver, "A0003").click()
        driver.find_element("css selector", 'a[rel="next"]').click()
        wait_for(lambda: "page 2 of 3" in driver.page_source, "page 2")
        box(driver, "A0060").click()
        elsewhere = driver.find_element("id", "ticked-elsewhere").text
        assert elsewhere == "and 2 ticked on other pages"
        driver.find_element("css selector", 'a[rel="prev"]').click()
        wait_for(lambda: "page 1 of 3" in driver.page_source, "page 1 again")
        assert box(driver, "A0000").is_selected() and box(driver, "A0003").is_selected()
        assert not box(driver, "A0001").is_selected()
        assert driver.find_element("id", "ticked-elsewhere").text == "and 1 ticked on other pages"
        driver.find_element(
            "css selector", '#review-page button[name="verdict"][value="approve"]'
        ).click()
        wait_for(lambda: approved(db) == ["A0000", "A0003", "A0060"], "the 3 approved")
        driver.get(f"{url}/dashboard/study/{STUDY}/submissions?page=1")
        assert driver.find_element("id", "ticked-elsewhere").text == ""
        assert not any(b.is_selected() for b in driver.find_elements("css selector", "input"))
