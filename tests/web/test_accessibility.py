"""Every page a participant can see passes axe-core with no serious or critical violation and
does not scroll sideways on a 360 px phone: each study type's task page in both hostings (an
external page on MTurk, before and after accepting; the page MTurk hosts), reached by a study
link and from Prolific, with an item shown and with an answer refused; every shipped spec's
page; the link's completion page; and every page the task server shows instead of a task.
Each study type is completed with the keyboard alone, the focus visible at every stop; a
participant asking for less motion gets none. One task server, one local Prolific service and
one Chromium per window size serve the whole module (docs/task-pages.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import requests
from flask import Flask
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from sqlmodel import select

from harness.platform.verification import Verifier
from harness.render.instrument import Instrument
from harness.render.pages import render_page
from harness.render.plan import plan_hits
from harness.spec import load_spec
from harness.spec.arms import load_arms
from harness.web import browsers, create_app
from harness.web.messages import message_page
from tests.browser import DESKTOP, NARROW_PHONE, chromium
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli
from tests.serving import ServedApp
from tests.web.accessibility import focus_shown, problems
from tests.web.factories import on_platform, plan_study, write_task_spec
from tests.web.person import start, visible_card, wait

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_available")]

KINDS = ["rating", "likert", "pair_comparison"]
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "task_specs").glob("*.yaml"))


ASKING = """consent: |
  ## Taking part
  You rate word pairs for about five minutes. You may **stop at any time**.
debrief: |
  Thank you. We study how people judge the *similarity* of words.
"""
"""A consent and a debrief (Markdown), as a spec gives them."""


@dataclass
class Site:
    """The task server (and the page MTurk would host) with each study type launched on a
    study link, on Prolific and as MTurk HITs."""

    url: str
    db: str
    mturk_pages: str
    prolific: str
    hit_keys: dict[str, str]

    def link(self, kind: str, participant: str) -> str:
        return f"{self.url}/p/{kind}-link?participant={participant}"

    def prolific_entry(self, kind: str, pid: str) -> str:
        """Where Prolific sends participant ``pid`` who joins ``kind``'s study."""
        studies = requests.get(
            f"{self.prolific}/api/v1/studies/", timeout=10, headers={"Authorization": "Token local"}
        ).json()["results"]
        (study,) = [s for s in studies if f"/p/{kind}-prolific?" in s["external_study_url"]]
        joined = requests.post(
            f"{self.prolific}/participant/studies/{study['id']}/join",
            json={"participant_id": pid},
            timeout=10,
        )
        assert joined.status_code == 201, joined.text
        url = urlsplit(joined.json()["study_url"])
        return f"{self.url}{url.path}?{url.query}"


def _spec(directory: Path, kind: str, name: str, raters: int = 6) -> Path:
    folder = directory / name
    folder.mkdir()
    return write_task_spec(
        folder,
        kind,
        **{
            "hosting: mturk\n": "",
            'reward: "0.10"': 'reward: "3.00"',  # at least Prolific's minimum hourly pay
            "raters_per_item: 3": f"raters_per_item: {raters}",
            "study: {name: words}": f"study: {{name: {name}}}",
            "study: {name: claims}": f"study: {{name: {name}}}",
            "study: {name: pairs}": f"study: {{name: {name}}}",
        },
    )


def _launch(spec: Path, db: str, *target: str) -> None:
    launched = harness_cli(
        "launch", str(spec), "--db", db, "--public-url", "http://tasks.test", *target
    )
    assert launched.exit_code == 0, launched.output


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    from harness.providers.prolific.local_service import Settings
    from harness.providers.prolific.local_service import create_app as prolific_app
    from harness.store import make_engine

    directory = tmp_path_factory.mktemp("a11y")
    db = migrated_sqlite(directory / "h.db")
    prolific = prolific_app(Settings(db_path=directory / "prolific.sqlite"))
    mturk_pages = Flask("mturk-hosted")
    engine = make_engine(db)
    hit_keys = {}
    with ServedApp(prolific) as prolific_served:
        for kind in KINDS:
            _launch(_spec(directory, kind, f"{kind}-link"), db, "--target", "link")
            _launch(
                _spec(directory, kind, f"{kind}-prolific"),
                db,
                "--target",
                "prolific-local",
                "--endpoint-url",
                prolific_served.url,
            )
            study = plan_study(engine, _spec(directory, kind, f"{kind}-mturk"))
            on_platform(engine, study.name, "local", "http://mturk.test")
            hit_keys[kind] = study.key(0)
            page = render_page(
                study.instrument, study.plans[0], study_name=study.name, hosting="mturk"
            )
            mturk_pages.add_url_rule(f"/{kind}", kind, lambda page=page: page)
        _launch(_spec(directory, "rating", "full-link", raters=1), db, "--target", "link")
        for closed in ("paused", "expired"):
            _launch(_spec(directory, "rating", f"{closed}-link"), db, "--target", "link")
        for command, name in (("pause", "paused-link"), ("expire", "expired-link")):
            done = harness_cli(command, name, "--db", db)
            assert done.exit_code == 0, done.output
        asking = _spec(directory, "rating", "consent-link")
        asking.write_text(asking.read_text(encoding="utf-8") + ASKING, encoding="utf-8")
        _launch(asking, db, "--target", "link")
        buttons = _spec(directory, "rating", "buttons-link")
        text = buttons.read_text().replace("fractional: true, decimals: 1, ", "")
        buttons.write_text(text, encoding="utf-8")  # whole numbers 0-10: a button each
        _launch(buttons, db, "--target", "link")
        # an assignment already submitted: the task server's page once MTurk vouched for it,
        # rendered here with its button completing the HIT
        mturk_pages.add_url_rule(
            "/already-submitted",
            "already",
            lambda: message_page(
                "Already submitted",
                "Your answers were already recorded. Press the button to complete the HIT.",
                200,
                complete_url="http://mturk.test/mturk/externalSubmit",
                assignment_id="A-DONE",
            ),
        )
        engine.dispose()
        app = create_app(db, verifier=Verifier())
        with ServedApp(app) as served, ServedApp(mturk_pages) as hosted:
            yield Site(served.url, db, hosted.url, prolific_served.url, hit_keys)
        app.extensions["harness"].close()
    prolific.extensions["prolific_local"].close()


def _task_page_problems(driver: Any, url: str, where: str) -> list[str]:
    """A task page's problems with its instructions open, with its first item shown, and with
    an answer refused (Next pressed with no answer)."""
    driver.get(url)
    found = problems(driver, f"{where}, instructions")
    start(driver)
    visible_card(driver)
    found += problems(driver, f"{where}, first item")
    if not driver.find_element("id", "preview-note").is_displayed():
        driver.find_element("id", "next").click()
        wait(driver).until(lambda d: d.execute_script(SHOWN_ERROR))
        found += problems(driver, f"{where}, answer refused")
    return found


SHOWN_ERROR = (
    "return Array.prototype.some.call(document.querySelectorAll('.card-error'),"
    " function (e) { return e.getClientRects().length > 0; });"
)


def _params(worker: str) -> str:
    return urlencode({"assignmentId": f"A-{worker}", "hitId": "H1", "workerId": worker})


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_each_task_page_passes_axe_and_fits_a_360_px_phone(kind, site):
    pages = {
        "study link": site.link(kind, f"LINK-{kind}"),
        "Prolific": site.prolific_entry(kind, f"PA11Y{KINDS.index(kind)}"),
        "MTurk external, preview": f"{site.url}/hit/{site.hit_keys[kind]}",
        "MTurk external, accepted": f"{site.url}/hit/{site.hit_keys[kind]}?{_params('W1')}",
        "MTurk hosted": f"{site.mturk_pages}/{kind}?{_params('W2')}",
    }
    found = []
    with chromium(NARROW_PHONE) as driver:
        for where, url in pages.items():
            found += _task_page_problems(driver, url, f"{kind}, {where}")
    assert found == []


@pytest.mark.slow
@pytest.mark.parametrize("spec", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_each_shipped_spec_s_page_passes_axe_and_fits_a_360_px_phone(spec):
    """The instruments harness ships (each arm of a spec with arms), with their own
    instructions, scales and items, as the page MTurk would host."""
    armed = "\narms:" in spec.read_text(encoding="utf-8")
    variants = {a.name: a.loaded for a in load_arms(spec).arms} if armed else {"": load_spec(spec)}
    app = Flask("shipped")
    for name, loaded in variants.items():
        page = render_page(
            Instrument.from_loaded(loaded),
            plan_hits(loaded)[0],
            study_name=loaded.spec.study.name,
            hosting="mturk",
        )
        app.add_url_rule(f"/{name}", name or "page", lambda page=page: page)
    found = []
    with ServedApp(app) as served, chromium(NARROW_PHONE) as driver:
        for n, name in enumerate(variants):  # a worker each: a page restores its worker's answers
            url = f"{served.url}/{name}?{_params(f'W{n}')}"
            found += _task_page_problems(driver, url, f"{spec.name} {name}".strip())
    assert found == []


@pytest.mark.slow
def test_a_rating_scale_of_buttons_names_its_words(site):
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("buttons", "BUTTONS"))
        start(driver)
        card = visible_card(driver)
        named = [
            i.accessible_name for i in card.find_elements("css selector", ".scale-button input")
        ]
        assert named == ["0, unrelated", *map(str, range(1, 10)), "10, identical"]
        assert problems(driver, "rating buttons") == []


def test_every_refusal_page_passes_axe_and_fits_a_360_px_phone(site):
    key = site.hit_keys["rating"]
    refusals = {
        "HIT not found": f"{site.url}/hit/nothing-000",
        "Bad link": f"{site.url}/hit/{key}?assignmentId=A%20B",
        "Not opened from MTurk": f"{site.url}/hit/{key}?{_params('W3')}&turkSubmitTo=https://x.test",
        "Worker id missing": f"{site.url}/hit/{key}?assignmentId=A-W4",
        "Study not found": f"{site.url}/p/nothing",
        "Cannot start": f"{site.url}/p/rating-link?participant=%3Cb%3E",
        "Cannot start (no Prolific ids)": f"{site.url}/p/rating-prolific",
        "No such task": f"{site.url}/p/rating-link/s/nothing",
        "Not finished": f"{site.url}/p/rating-link/done/nothing",
        "Study paused": site.link("paused", "NEWCOMER"),
        "Study closed": site.link("expired", "LATECOMER"),
        "Already submitted": f"{site.mturk_pages}/already-submitted",
    }
    found = []
    with chromium(NARROW_PHONE) as driver:
        for title, url in refusals.items():
            driver.get(url)
            assert driver.find_element("tag name", "h1").text == title.split(" (")[0]
            found += problems(driver, title)
        # a task page opened in a browser that did not start its session
        driver.get(site.link("rating", "OTHER-BROWSER"))
        visible = driver.current_url
        driver.delete_all_cookies()
        driver.get(visible)
        assert driver.find_element("tag name", "h1").text == browsers.TITLE
        found += problems(driver, browsers.TITLE)
    assert found == []


def test_a_full_study_says_so_accessibly(site):
    """The study's one place taken, the next participant is told there is no task for them."""
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("full", "FULL-1"))  # the study's one place
        start(driver)
        driver.delete_all_cookies()
        driver.get(site.link("full", "FULL-2"))
        assert driver.find_element("tag name", "h1").text == "No task for you"
        assert problems(driver, "No task for you") == []


def press(driver: Any, *keys: str) -> None:
    """Keys sent to whatever has the focus, as a keyboard would."""
    ActionChains(driver).send_keys(*keys).perform()


def focused(driver: Any, selector: str) -> bool:
    """Whether the focused element matches ``selector`` and has a box on the page."""
    return bool(
        driver.execute_script(
            "var el = document.activeElement;"
            "return !!el && el.matches(arguments[0]) && el.getClientRects().length > 0;",
            selector,
        )
    )


def tab_to(driver: Any, selector: str, unseen: list[str], limit: int = 40) -> None:
    """Press Tab until a shown element matching ``selector`` has the focus; every focus on the
    way that shows no outline is added to ``unseen``."""
    for _ in range(limit):
        if focused(driver, selector):
            return
        press(driver, Keys.TAB)
        missing = focus_shown(driver)
        if missing:
            unseen.append(f"{missing} (on the way to {selector})")
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def _rating_keys(driver: Any, position: int, unseen: list[str]) -> None:
    if position == 0:  # the slider, from its keys: Home is the scale's minimum, 0
        tab_to(driver, ".slider", unseen)
        press(driver, Keys.HOME, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        slider = driver.switch_to.active_element
        assert slider.get_attribute("aria-valuetext") == "0.2, between unrelated and identical"
        press(driver, Keys.END)
        assert slider.get_attribute("aria-valuetext") == "10, identical"
    else:
        tab_to(driver, ".value-input", unseen)
        press(driver, str(position))


def _likert_keys(driver: Any, position: int, unseen: list[str]) -> None:
    tab_to(driver, ".gate-input", unseen)
    press(driver, Keys.SPACE)  # "Yes": the statement is understandable
    tab_to(driver, ".answer-input", unseen)
    press(driver, Keys.ARROW_DOWN)  # the second answer


def _pair_keys(driver: Any, position: int, unseen: list[str]) -> None:
    tab_to(driver, ".answer-input", unseen)
    press(driver, Keys.SPACE)


KEYS = {"rating": _rating_keys, "likert": _likert_keys, "pair_comparison": _pair_keys}


def _stored(db: str, participant: str) -> int:
    from harness.store import make_engine, session_scope
    from harness.store.models import Assignment, Judgment, Worker

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            query = (
                select(Judgment)
                .join(Assignment, Assignment.id == Judgment.assignment_id)
                .join(Worker, Worker.id == Assignment.worker_id)
                .where(Worker.platform_worker_id == participant)
            )
            return len(session.exec(query).all())
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_each_study_type_is_completed_with_the_keyboard_alone(kind, site):
    """From the study link to the completion page with Tab, Space, arrows and Enter only; the
    focus is visible at every stop, and the answers are stored."""
    participant = f"KEYS-{kind}"
    unseen: list[str] = []
    with chromium(DESKTOP) as driver:
        driver.get(site.link(kind, participant))
        tab_to(driver, "#start", unseen)
        press(driver, Keys.ENTER)
        total = len(driver.find_elements("css selector", ".card"))
        for position in range(total):
            visible_card(driver)
            KEYS[kind](driver, position, unseen)
            last = position == total - 1
            tab_to(driver, "#submit" if last else "#next", unseen)
            press(driver, Keys.ENTER)
            if not last and driver.find_element("id", "halfway").is_displayed():
                assert focused(driver, "#halfway-continue")  # the reminder takes the focus
                press(driver, Keys.ENTER)
        wait(driver).until(lambda d: "/done/" in d.current_url)
        done = driver.current_url
    assert unseen == []
    assert _stored(site.db, participant) == total
    with chromium(NARROW_PHONE) as phone:
        phone.get(done)
        assert phone.find_element("id", "completion-code").text
        assert problems(phone, f"{kind}, completion page") == []


def test_a_participant_consents_reads_the_instructions_and_the_debrief_by_keyboard(site):
    """Consent before the first item, the instructions open again while answering, the debrief
    after submitting, Continue to the completion page: keys only, the focus visible at every
    stop, and every state of the page passing axe-core on a 360 px phone."""
    participant = "CONSENTS"
    unseen: list[str] = []
    found: list[str] = []
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("consent", participant))
        assert not driver.find_element("id", "start").is_displayed()  # no items before consent
        found += problems(driver, "consent")
        tab_to(driver, "#consent-agree", unseen)
        press(driver, Keys.ENTER)
        assert focused(driver, "#start")
        found += problems(driver, "instructions after consent")
        press(driver, Keys.ENTER)
        total = len(driver.find_elements("css selector", ".card"))
        for position in range(total):
            visible_card(driver)
            if position == 1:  # the instructions, read again mid-task
                summary = driver.find_element("css selector", "#guidelines summary")
                summary.send_keys(Keys.ENTER)
                assert driver.find_element(
                    "css selector", "#guidelines .guidelines-text"
                ).is_displayed()
                found += problems(driver, "instructions while answering")
                summary.send_keys(Keys.ENTER)
            _rating_keys(driver, position, unseen)
            last = position == total - 1
            tab_to(driver, "#submit" if last else "#next", unseen)
            press(driver, Keys.ENTER)
            if not last and driver.find_element("id", "halfway").is_displayed():
                press(driver, Keys.ENTER)
        onward = wait(driver).until(lambda d: d.find_element("id", "continue"))
        wait(driver).until(lambda d: onward.is_displayed())
        assert "similarity" in driver.find_element("id", "debrief").text
        found += problems(driver, "debrief")
        tab_to(driver, "#continue", unseen)
        press(driver, Keys.ENTER)
        wait(driver).until(lambda d: "/done/" in d.current_url)
    assert unseen == [] and found == []
    assert _stored(site.db, participant) == total
    assert _consent_stored(site.db, participant)


def test_a_participant_who_does_not_consent_is_told_nothing_is_recorded(site):
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("consent", "DECLINES"))
        driver.find_element("id", "consent-decline").click()
        declined = driver.find_element("id", "declined")
        assert declined.is_displayed() and "nothing about you is recorded" in declined.text
        assert not driver.find_element("id", "guidelines").is_displayed()
        assert problems(driver, "declined") == []


def _withdraw_by_keyboard(driver: Any, unseen: list[str]) -> str:
    """Withdraw from the open task page with keys only; the page's words once withdrawn, and
    axe-core's and the phone's problems with the question and the answer."""
    tab_to(driver, "#withdraw", unseen)
    press(driver, Keys.ENTER)
    assert focused(driver, "#withdraw-yes")  # the question takes the focus
    found = problems(driver, "withdraw?")
    press(driver, Keys.ENTER)
    banner = wait(driver).until(lambda d: d.find_element("id", "withdrawn"))
    wait(driver).until(lambda d: banner.is_displayed())
    assert not driver.find_element("id", "task-form").is_displayed()
    found += problems(driver, "withdrawn")
    assert found == []
    return str(banner.text)


def _events(db: str, kind: Any) -> list[dict[str, Any]]:
    from harness.store import make_engine, session_scope
    from harness.store.models import Event

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            rows = session.exec(select(Event).where(Event.kind == kind).order_by(Event.id)).all()
            return [dict(e.payload, subject=e.subject) for e in rows]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_participant_withdraws_mid_task_by_keyboard_on_every_platform(site):
    """On a study link (nobody to tell), from Prolific (asked for the return of the
    submission) and on MTurk (the worker is asked to return the HIT; a page MTurk hosts has
    no server to tell): confirmed first, keys
    only, passing axe-core on a 360 px phone; the withdrawal recorded."""
    from harness.store.models import EventKind

    unseen: list[str] = []
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("likert", "LEAVES"))
        start(driver)
        visible_card(driver)
        said = _withdraw_by_keyboard(driver, unseen)
        assert said == "You have withdrawn from the study. Nothing you answered will be used."
        driver.get(site.prolific_entry("rating", "PLEAVES1"))
        said = _withdraw_by_keyboard(driver, unseen)
        assert "Please return the study on Prolific" in said
        session = urlsplit(driver.current_url).path.rsplit("/", 1)[1]
        driver.get(f"{site.url}/hit/{site.hit_keys['pair_comparison']}?{_params('WLEAVES')}")
        said = _withdraw_by_keyboard(driver, unseen)
        assert "Please return the HIT on MTurk" in said
        driver.get(f"{site.mturk_pages}/rating?{_params('WHOSTED')}")  # the page MTurk hosts
        said = _withdraw_by_keyboard(driver, unseen)
        assert said == (
            "You have withdrawn from the study: nothing was sent. Please return the HIT on "
            "MTurk (its Return button)."
        )
    assert unseen == []
    who = [e["worker"] for e in _events(site.db, EventKind.PARTICIPANT_WITHDREW)]
    assert {"LEAVES", "PLEAVES1", "WLEAVES"} <= set(who)
    returns = [e for e in _events(site.db, EventKind.WITHDRAWAL_RETURN) if e["subject"] == session]
    assert [e["return"] for e in returns] == ["asked"]
    asked = requests.get(
        f"{site.prolific}/api/v1/submissions/{session}/",
        timeout=10,
        headers={"Authorization": "Token local"},
    ).json()
    assert asked.get("return_requested"), asked


def _consent_stored(db: str, participant: str) -> bool:
    from harness.store import make_engine, session_scope
    from harness.store.models import Assignment, Worker

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            query = (
                select(Assignment)
                .join(Worker, Worker.id == Assignment.worker_id)
                .where(Worker.platform_worker_id == participant)
            )
            row = session.exec(query).one()
            return row.consent_hash is not None and row.consented_at is not None
    finally:
        engine.dispose()


MOVING = """
return Array.prototype.filter.call(document.querySelectorAll("*"), function (el) {
  var s = getComputedStyle(el);
  return parseFloat(s.transitionDuration) > 0 || s.animationName !== "none";
}).map(function (el) { return el.id || el.className; });
"""
"""What on the page would move: elements with a transition or an animation."""


def test_a_participant_who_asks_for_less_motion_gets_none(site):
    with chromium(NARROW_PHONE) as driver:
        driver.get(site.link("likert", "MOTION"))
        assert "progress-fill" in driver.execute_script(MOVING)  # the progress bar glides
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
        )
        try:
            driver.refresh()
            start(driver)
            assert driver.execute_script(MOVING) == []
        finally:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


BAD_PAGE = """<!doctype html><html><head><title>bad</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin: 0">
<img src="data:,"><input type="text"><div style="width: 900px">wide</div></body></html>"""


def test_the_checks_find_a_page_that_fails_them():
    """A page without a language, with an image without words and an input without a label,
    wider than a phone: what the tests above would have caught."""
    app = Flask("bad")
    app.add_url_rule("/", "bad", lambda: BAD_PAGE)
    with ServedApp(app) as served, chromium(NARROW_PHONE) as driver:
        driver.get(served.url)
        found = problems(driver, "bad")
    rules = sorted(line.split(" ")[1] for line in found)
    assert rules == ["540", "html-has-lang", "image-alt", "label"], found  # 900 - 360 px
