"""The study page, a worker's page, the list of submissions and one's answers at 1280 px
and at 390 px in a real Chromium: axe-core finds no serious or critical violation on the study
page and a worker's page (nor on the login page and the studies list), the page never scrolls
sideways, every card stays inside the window (a wide table scrolls inside its card), and the
buttons a researcher acts with are in reach: at 1280 px each one is inside the window; at 390
px each is inside the window or in a card that scrolls. One study and server for the module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import PHONE, chromium, chromium_available
from tests.web.dashboard.factories import PASSWORD, STUDY, LiveStudy
from tests.web.dashboard.test_browser import text, wait_for

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="Chromium or chromedriver not found (run scripts/setup.sh)"
)

WIDE = (1280, 900)

MEASURE = """
const width = window.innerWidth;
const out = {page: document.documentElement.scrollWidth, width: width, cards: [], buttons: []};
for (const card of document.querySelectorAll("section")) {
  const box = card.getBoundingClientRect();
  out.cards.push({id: card.id, left: box.left, right: box.right});
}
for (const button of document.querySelectorAll("main button")) {
  const box = button.getBoundingClientRect();
  const card = button.closest("section");
  const scrolls = card !== null && getComputedStyle(card).overflowX === "auto";
  out.buttons.push({text: button.textContent.trim(), right: box.right, scrolls: scrolls,
                    inCard: card === null || box.right <= card.getBoundingClientRect().right + 1});
}
return out;
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStudy]:
    study = LiveStudy(tmp_path_factory.mktemp("layout")).start()
    study.crowd(rounds=1)
    yield study
    study.stop()


def logged_in_at(live: LiveStudy, driver: Any) -> None:
    driver.get(f"{live.url}/dashboard/login")
    driver.find_element("id", "password").send_keys(PASSWORD)
    driver.find_element("id", "login").click()
    wait_for(lambda: "Studies" in driver.title, "the studies list after logging in")


@pytest.mark.slow
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1280px", "390px"])
def test_every_action_is_in_reach_without_the_page_scrolling_sideways(live, size):
    with chromium(size) as driver:
        logged_in_at(live, driver)
        worker = live.workers()[0]
        from harness.providers.mturk.crowd import mturk_worker_id

        pending = live_pending(live)
        pages = {
            "study": f"/dashboard/study/{STUDY}",
            "worker": f"/dashboard/study/{STUDY}/worker/{mturk_worker_id(worker.worker_id)}",
            "submissions": f"/dashboard/study/{STUDY}/submissions",
            "answers": f"/dashboard/study/{STUDY}/assignment/{pending}",
        }
        buttons = {"study": 3, "worker": 3, "submissions": 4, "answers": 2}  # at least
        for name, path in pages.items():
            driver.get(f"{live.url}{path}")
            if name == "study":
                wait_for(lambda: text(driver, "live") == "live", "the event stream")
            seen = driver.execute_script(MEASURE)
            width = seen["width"]
            assert seen["page"] <= width, (name, size, seen["page"])  # no sideways scroll
            assert all(0 <= c["left"] and c["right"] <= width + 1 for c in seen["cards"]), (
                name,
                size,
                seen["cards"],
            )
            assert len(seen["buttons"]) >= buttons[name], (name, seen["buttons"])
            if size == WIDE:
                out = [b for b in seen["buttons"] if b["right"] > width or not b["inCard"]]
            else:  # in the window, or in a card that scrolls sideways to it
                out = [b for b in seen["buttons"] if not (b["inCard"] or b["scrolls"])]
            assert not out, (name, size, out)


def live_pending(live: LiveStudy) -> str:
    """A submission of the study awaiting review."""
    from sqlmodel import select

    from harness.store import make_engine, session_scope
    from harness.store.models import Assignment, AssignmentStatus

    engine = make_engine(live.db)
    try:
        with session_scope(engine) as session:
            found = session.exec(
                select(Assignment.platform_assignment_id).where(
                    Assignment.status == AssignmentStatus.SUBMITTED
                )
            ).first()
    finally:
        engine.dispose()
    assert found is not None
    return found


@pytest.mark.slow
def test_an_open_page_whose_session_ended_asks_to_log_in(live):
    """A logout from another tab of the same session ends it here too: the page goes to the
    login page instead of saying "reconnecting..." for ever."""
    import requests

    with chromium(WIDE) as driver:
        logged_in_at(live, driver)
        driver.get(f"{live.url}/dashboard/study/{STUDY}")
        wait_for(lambda: text(driver, "live") == "live", "the event stream")
        cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
        token = driver.execute_script(
            "return document.querySelector('meta[name=csrf-token]').content"
        )
        other_tab = requests.post(
            f"{live.url}/dashboard/logout",
            data={"csrf_token": token},
            cookies=cookies,
            allow_redirects=False,
            timeout=30,
        )
        assert other_tab.status_code == 303
        wait_for(lambda: "/dashboard/login" in driver.current_url, "the login page", 60)
        assert f"next=%2Fdashboard%2Fstudy%2F{STUDY}" in driver.current_url


@pytest.mark.slow
def test_typed_text_survives_live_updates_which_go_on_while_someone_types(live):
    """Half a rejection's feedback typed (the box keeps focus) and a box ticked; another
    person approves a submission meanwhile: the list updates, the text and the tick stay."""
    from tests.web.dashboard.factories import logged_in

    pending = "#pending tbody tr"
    with chromium(WIDE) as driver:
        logged_in_at(live, driver)
        driver.get(f"{live.url}/dashboard/study/{STUDY}")
        wait_for(lambda: text(driver, "live") == "live", "the event stream")
        rows = driver.execute_script(
            f"return Array.from(document.querySelectorAll('{pending}'))"
            ".map(function (r) { return r.cells[1].textContent; });"
        )
        assert len(rows) >= 3, rows
        first, second, last = rows[0], rows[1], rows[-1]
        driver.find_element("css selector", f'input[value="{second}"][type=checkbox]').click()
        box = driver.find_element("css selector", f"{pending}:first-child input[name=feedback]")
        box.click()
        box.send_keys("Half typed")
        http, token = logged_in(live.url)
        approved = http.post(
            f"{live.url}/dashboard/study/{STUDY}/approve",
            data={"csrf_token": token, "assignment": last},
        )
        assert approved.status_code == 200
        wait_for(
            lambda: last not in text(driver, "section-review"), "the approval shown while typing"
        )
        kept = driver.execute_script(
            f"var row = document.querySelector('{pending}:first-child');"
            "var tick = document.querySelector('input[type=checkbox][value=\"" + second + "\"]');"
            "return [row.cells[1].textContent, row.querySelector('input[name=feedback]').value,"
            " document.activeElement.name, tick.checked];"
        )
        assert kept == [first, "Half typed", "feedback", True]


TABLES = """
const out = [];
for (const table of document.querySelectorAll("main table")) {
  const card = table.closest("section");
  if (card === null || table.getClientRects().length === 0) { continue; }
  const box = table.getBoundingClientRect(), inside = card.getBoundingClientRect();
  const scrolls = ["auto", "scroll"].includes(getComputedStyle(card).overflowX)
    || ["auto", "scroll"].includes(getComputedStyle(table.parentElement).overflowX);
  out.push({id: table.id || card.id, fits: box.right <= inside.right + 1, scrolls: scrolls,
            cardInWindow: inside.right <= window.innerWidth + 1});
}
return out;
"""
"""Each table shown on the page: whether it fits its card, or else the card (or the table's
box) scrolls sideways within itself, and whether the card keeps inside the window."""


@pytest.mark.slow
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1280px", "390px"])
def test_every_dashboard_page_passes_axe_with_its_tables_inside_their_cards(live, size):
    """axe-core finds no serious or critical violation on the login page, the studies list,
    the study page and a worker's page; every table is inside its card, which scrolls it
    sideways when it is wider (never the page)."""
    from harness.providers.mturk.crowd import mturk_worker_id
    from tests.web.accessibility import problems

    found: list[str] = []
    clipped: list[dict[str, Any]] = []
    with chromium(size) as driver:
        driver.get(f"{live.url}/dashboard/login")
        found += problems(driver, "login")
        logged_in_at(live, driver)
        worker = mturk_worker_id(live.workers()[0].worker_id)
        pages = {
            "studies": "/dashboard/",
            "study": f"/dashboard/study/{STUDY}",
            "worker": f"/dashboard/study/{STUDY}/worker/{worker}",
        }
        for name, path in pages.items():
            driver.get(f"{live.url}{path}")
            if name == "study":
                wait_for(lambda: text(driver, "live") == "live", "the event stream")
            found += problems(driver, f"{name} at {size[0]} px")
            clipped += [
                t | {"page": name}
                for t in driver.execute_script(TABLES)
                if not ((t["fits"] or t["scrolls"]) and t["cardInWindow"])
            ]
    assert found == []
    assert clipped == []
