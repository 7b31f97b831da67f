"""Screenshots of each study type's task page (desktop and a 360 px phone) for docs/task-pages.md.

Serves the first HIT of each shipped spec from a throw-away store, opens it in headless
Chromium as a worker who has just answered the first item, and saves docs/img/task-*.png.
Run: .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from selenium.webdriver.common.by import By  # noqa: E402

from harness.store import make_engine  # noqa: E402
from harness.store.migrations import upgrade  # noqa: E402
from harness.web import create_app  # noqa: E402
from tests.browser import DESKTOP, NARROW_PHONE, chromium  # noqa: E402
from tests.serving import ServedApp  # noqa: E402
from tests.web.factories import plan_study  # noqa: E402
from tests.web.person import start, visible_card  # noqa: E402

SHOTS = {  # file stem: (spec, how the first item is answered)
    "rating": ("ws353_reproduction.yaml", lambda card: _type(card, "7.5")),
    "rating-buttons": ("sentence_similarity.yaml", lambda card: _click(card, ".scale-button", 3)),
    "likert": ("statements_likert.yaml", lambda card: _likert(card)),
    "pair-comparison": ("ws353_resolution.yaml", lambda card: _click(card, ".pair-choice", 0)),
    "rating-hebrew": ("word_pairs_he.yaml", lambda card: _click(card, ".scale-button", 3)),
}


def _type(card, text):
    card.find_element(By.CSS_SELECTOR, ".value-input").send_keys(text)


def _click(card, selector, index):
    card.find_elements(By.CSS_SELECTOR, selector)[index].click()


def _likert(card):
    _click(card, ".gate-choice", 0)
    _click(card, ".option", 1)


def main() -> None:
    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        url = f"sqlite:///{work}/screens.db"
        upgrade(url)
        engine = make_engine(url)
        studies = {
            stem: plan_study(engine, ROOT / "task_specs" / spec)
            for stem, (spec, _) in SHOTS.items()
        }
        engine.dispose()
        app = create_app(url)
        with ServedApp(app) as served:
            for stem, (_spec, answer) in SHOTS.items():
                sizes = {"desktop": DESKTOP, "phone": NARROW_PHONE}
                for label, size in sizes.items():
                    with chromium(size) as driver:
                        query = f"assignmentId=SHOT-{stem}-{label}&hitId=H&workerId=W-DOCS"
                        driver.get(f"{served.url}/hit/{studies[stem].key(0)}?{query}")
                        start(driver)
                        answer(visible_card(driver))
                        driver.save_screenshot(str(out / f"task-{stem}-{label}.png"))
                        print(out / f"task-{stem}-{label}.png")
            with chromium(NARROW_PHONE) as driver:
                key = studies["likert"].key(0)
                driver.get(f"{served.url}/hit/{key}?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE")
                driver.save_screenshot(str(out / "task-preview-phone.png"))
        app.extensions["harness"].close()


if __name__ == "__main__":
    main()
