"""Real headless Chromium: a rating slider shows no value until the worker sets one, and an
unanswered item is still refused."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from flask import Flask
from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import plan_hits
from harness.spec import load_spec
from tests.browser import chromium
from tests.serving import ServedApp
from tests.web.factories import write_task_spec
from tests.web.person import start, visible_card

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_available")]


@pytest.fixture
def rating_page(tmp_path) -> Iterator[Any]:
    """The first HIT of the small rating spec (0-10, one decimal), open in Chromium."""
    loaded = load_spec(write_task_spec(tmp_path, "rating"))
    page = render_page(
        Instrument.from_loaded(loaded), plan_hits(loaded)[0], study_name="words", hosting="mturk"
    )
    app = Flask("page")
    app.add_url_rule("/page", "page", lambda: page)
    params = {"assignmentId": "A-SLIDER", "hitId": "H", "workerId": "W1"}
    with ServedApp(app) as served, chromium() as driver:
        driver.get(f"{served.url}/page?{urlencode(params)}")
        start(driver)
        yield driver


def thumb_drawn(slider: Any) -> bool:
    """Whether the slider's picture has a thumb: columns where more rows are inked than on the
    bare track (the track is a uniform band; the thumb is a disc taller than it)."""
    image = np.asarray(Image.open(io.BytesIO(slider.screenshot_as_png)).convert("RGB"), int)
    inked = np.abs(image - image[0, 0]).sum(axis=2) > 30
    per_column = inked.sum(axis=0)
    return bool(per_column.max() > np.median(per_column) + 3)


def test_an_unanswered_slider_shows_no_value_until_the_worker_sets_one(rating_page):
    driver = rating_page
    card = visible_card(driver)
    slider = card.find_element(By.CSS_SELECTOR, ".slider")
    text = card.find_element(By.CSS_SELECTOR, ".value-input")
    assert not thumb_drawn(slider)
    assert slider.get_attribute("aria-valuetext") == "no answer yet"
    assert text.get_attribute("value") == ""
    assert driver.execute_script("return window.harnessTask.state[0].value") is None

    driver.find_element(By.ID, "next").click()  # refused, as before: nothing was answered
    error = card.find_element(By.CSS_SELECTOR, ".card-error")
    assert error.is_displayed() and error.text == "Please answer this item before going on."
    assert card.find_element(By.CSS_SELECTOR, ".card-count").text.lower() == "item 1 of 7"

    text.send_keys("0")  # the same position as the resting slider, now an answer
    assert thumb_drawn(slider) and slider.get_attribute("aria-valuetext") == "0, unrelated"
    text.send_keys("x")  # "0x" is no answer: the slider goes back to showing none
    assert not thumb_drawn(slider)
    assert slider.get_attribute("aria-valuetext") == "no answer yet"
    assert driver.execute_script("return window.harnessTask.state[0].value") is None


def test_a_click_at_the_resting_end_of_the_slider_answers_the_minimum(rating_page):
    driver = rating_page
    card = visible_card(driver)
    slider = card.find_element(By.CSS_SELECTOR, ".slider")
    left_end = -slider.size["width"] // 2 + 2  # offsets are from the element's centre
    ActionChains(driver).move_to_element_with_offset(slider, left_end, 0).click().perform()
    assert thumb_drawn(slider)
    assert card.find_element(By.CSS_SELECTOR, ".value-input").get_attribute("value") == "0"
    assert driver.execute_script("return window.harnessTask.state[0].value") == 0
    driver.find_element(By.ID, "next").click()
    assert visible_card(driver).find_element(By.CSS_SELECTOR, ".card-count").text.lower() == (
        "item 2 of 7"
    )
