"""A person answering a task page in a real browser: reads each item, answers through the
controls (typing, clicking, the slider's keys), goes on, and submits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


@dataclass
class Given:
    """What the person answered at each position: the item key, the value, whether skipped."""

    keys: list[str] = field(default_factory=list)
    values: list[float | None] = field(default_factory=list)
    skipped: list[bool] = field(default_factory=list)
    reminders: int = 0


POLL = 0.05
"""Seconds between two looks while waiting for the page (selenium's default, 0.5 s, makes
every wait for a page that is not there yet cost up to half a second)."""


def wait(driver: Any, seconds: float = 120) -> WebDriverWait:
    return WebDriverWait(driver, seconds, poll_frequency=POLL)


SHOWN_CARD = (
    "return Array.prototype.find.call(document.querySelectorAll('.card'),"
    " function (c) { return c.getClientRects().length > 0; }) || null;"
)
"""The card the page shows: the one with a box on the page (a hidden card, or one in a hidden
form, has none). Asked in one short script: selenium's is_displayed sends its whole visibility
script (16 kB) for each element, and asking it of every card before every answer (a page of
20 cards: 400 asks) was about a sixth of the CPU of the arms browser tests."""


def visible_card(driver: Any) -> Any:
    return wait(driver).until(lambda d: d.execute_script(SHOWN_CARD))


def shown(driver: Any, element: Any) -> bool:
    """Whether ``element`` has a box on the page (as `SHOWN_CARD` asks of a card)."""
    return bool(driver.execute_script("return arguments[0].getClientRects().length > 0;", element))


def start(driver: Any) -> None:
    wait(driver).until(EC.element_to_be_clickable((By.ID, "start"))).click()


def answer_all(driver: Any, kind: str) -> Given:
    """Answer every item of the open page as a person would, then press Submit."""
    given = Given()
    start(driver)
    total = len(driver.find_elements(By.CSS_SELECTOR, ".card"))
    for position in range(total):
        card = visible_card(driver)
        assert card.find_element(By.CSS_SELECTOR, ".card-count").text.lower() == (
            f"item {position + 1} of {total}"
        )
        given.keys.append(card.get_dom_attribute("data-key"))
        value, skipped = ANSWER[kind](driver, card, position)
        given.values.append(value)
        given.skipped.append(skipped)
        if position < total - 1:
            driver.find_element(By.ID, "next").click()
            reminder = driver.find_element(By.ID, "halfway")
            if shown(driver, reminder):
                given.reminders += 1
                driver.find_element(By.ID, "halfway-continue").click()
    driver.find_element(By.ID, "submit").click()
    return given


def _rating(driver: Any, card: Any, position: int) -> tuple[float | None, bool]:
    buttons = card.find_elements(By.CSS_SELECTOR, ".scale-button")
    if buttons:
        choice = buttons[position % len(buttons)]
        choice.click()
        return float(choice.text), False
    text = card.find_element(By.CSS_SELECTOR, ".value-input")
    if position == 0:
        # a slip first: out of range, the page says what is allowed and does not go on
        text.send_keys("12")
        driver.find_element(By.ID, "next").click()
        error = card.find_element(By.CSS_SELECTOR, ".card-error")
        assert error.is_displayed() and "is not allowed" in error.text, error.text
        text.clear()
        text.send_keys("7,5")  # a decimal comma is read as a decimal point
        return 7.5, False
    if position == 1:
        slider = card.find_element(By.CSS_SELECTOR, ".slider")
        slider.click()  # the middle of the track
        slider.send_keys(Keys.HOME, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        return float(text.get_attribute("value")), False
    value = round(position % 10 + 0.5, 1)
    text.send_keys(f"{value:g}")
    return value, False


def _likert(driver: Any, card: Any, position: int) -> tuple[float | None, bool]:
    gates = card.find_elements(By.CSS_SELECTOR, ".gate-choice")
    if gates:
        if position == 1:
            gates[1].click()  # "No": the statement is not understandable, so it is skipped
            return None, True
        gates[0].click()
    if position == 2:
        card.find_element(By.CSS_SELECTOR, ".skip").click()
        return None, True
    options = card.find_elements(By.CSS_SELECTOR, ".option")
    choice = options[position % len(options)]
    choice.click()
    return float(choice.find_element(By.CSS_SELECTOR, "input").get_dom_attribute("value")), False


def _pair(driver: Any, card: Any, position: int) -> tuple[float | None, bool]:
    choices = card.find_elements(By.CSS_SELECTOR, ".pair-choice")
    choice = choices[position % 3]
    choice.click()
    return float(choice.find_element(By.CSS_SELECTOR, "input").get_dom_attribute("value")), False


ANSWER = {"rating": _rating, "likert": _likert, "pair_comparison": _pair}
