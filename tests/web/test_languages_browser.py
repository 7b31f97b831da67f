"""Real headless Chromium: a page in a right-to-left language (the shipped Hebrew spec) is laid
out right to left, and a German page writes its numbers the German way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from flask import Flask
from selenium.webdriver.common.by import By

from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import plan_hits
from harness.spec import load_spec
from tests.browser import chromium
from tests.factories import TASK_SPECS
from tests.serving import ServedApp
from tests.web.person import start, visible_card

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_available")]


def _open(spec: Path) -> Iterator[Any]:
    """The first HIT of ``spec``, started, in Chromium."""
    loaded = load_spec(spec)
    page = render_page(
        Instrument.from_loaded(loaded), plan_hits(loaded)[0], study_name="words", hosting="mturk"
    )
    app = Flask("page")
    app.add_url_rule("/page", "page", lambda: page)
    params = {"assignmentId": "A-LANG", "hitId": "H", "workerId": "W1"}
    with ServedApp(app) as served, chromium() as driver:
        driver.get(f"{served.url}/page?{urlencode(params)}")
        start(driver)
        yield driver


@pytest.fixture
def hebrew_page() -> Iterator[Any]:
    yield from _open(TASK_SPECS / "word_pairs_he.yaml")


@pytest.fixture
def german_page() -> Iterator[Any]:
    yield from _open(TASK_SPECS / "wortpaare_de.yaml")


def _left(element: Any) -> float:
    return float(element.rect["x"])


def test_a_hebrew_page_is_laid_out_right_to_left(hebrew_page, tmp_path):
    driver = hebrew_page
    root = driver.find_element(By.TAG_NAME, "html")
    assert (root.get_attribute("lang"), root.get_attribute("dir")) == ("he", "rtl")
    card = visible_card(driver)
    assert driver.execute_script("return getComputedStyle(arguments[0]).direction", card) == "rtl"
    # the first word of a pair reads first, so it stands on the right
    first, second = card.find_elements(By.CSS_SELECTOR, ".sides .side")
    assert _left(first) > _left(second)
    # the scale runs from the right: its lowest button is the rightmost
    buttons = card.find_elements(By.CSS_SELECTOR, ".scale-button")
    assert [b.text for b in buttons] == ["1", "2", "3", "4", "5"]
    assert _left(buttons[0]) > _left(buttons[-1])
    # "Back" starts the row (on the right), "Next" ends it (on the left)
    back, following = driver.find_element(By.ID, "back"), driver.find_element(By.ID, "next")
    assert _left(back) > _left(following)
    assert following.text == "הבא ←"
    assert card.find_element(By.CLASS_NAME, "card-count").get_attribute("textContent") == (
        "פריט 1 מתוך 6"
    )
    shot = tmp_path / "rating-he.png"
    assert driver.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_german_page_writes_decimals_with_a_comma(german_page):
    driver = german_page
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de"
    card = visible_card(driver)
    assert "z. B. 7,5" in card.find_element(By.CLASS_NAME, "hint").text
    field = card.find_element(By.CLASS_NAME, "value-input")
    field.send_keys("7,5")
    slider = card.find_element(By.CLASS_NAME, "slider")
    assert slider.get_attribute("aria-valuetext") == (
        "7,5, zwischen nicht verwandt und gleiche Bedeutung"
    )
    driver.find_element(By.ID, "next").click()
    count = visible_card(driver).find_element(By.CLASS_NAME, "card-count")
    assert count.get_attribute("textContent") == "Frage 2 von 10"
