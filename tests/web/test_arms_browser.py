"""Real headless Chromium (issue #18): two participants of a study with arms, arriving by the
same study link, are put into different arms and each sees, answers and submits their arm's
page: the shipped statements_variants spec, launched on a study link through the real CLI and
served by the real task server."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from sqlmodel import select

from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms, worker_arm
from harness.store.models import Worker
from tests.browser import chromium
from tests.factories import TASK_SPECS
from tests.platform.factories import harness_cli
from tests.serving import ServedApp
from tests.web.person import answer_all, wait

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.usefixtures("browser_available"),
]
SPEC = TASK_SPECS / "statements_variants.yaml"
GATE = "Is this statement understandable?"


def _arm_of(db: str, worker: str) -> str:
    engine = make_engine(db)
    with session_scope(engine) as session:
        row = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).one()
        name = worker_arm(session, 1, row.id).name
    engine.dispose()
    return name


def _shown(driver) -> dict[str, object]:
    """What the first card of the page shows (before it is started): option values in
    order, whether they are coloured, whether a gate question comes first."""
    card = wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".card"))[0]
    options = card.find_elements(By.CSS_SELECTOR, ".option")
    values = [o.find_element(By.CSS_SELECTOR, "input").get_attribute("value") for o in options]
    return {
        "values": [float(v) for v in values],
        "coloured": all("--option-color" in (o.get_attribute("style") or "") for o in options),
        "gate": bool(card.find_elements(By.CSS_SELECTOR, ".gate-choice")),
    }


EXPECTED = {
    "ascending": {"values": [1.0, 2.0, 3.0, 4.0, 5.0], "coloured": True, "gate": True},
    "descending": {"values": [5.0, 4.0, 3.0, 2.0, 1.0], "coloured": True, "gate": True},
    "plain": {"values": [1.0, 2.0, 3.0, 4.0, 5.0], "coloured": False, "gate": True},
    "no-gate": {"values": [1.0, 2.0, 3.0, 4.0, 5.0], "coloured": True, "gate": False},
}


def test_two_participants_in_different_arms_see_and_submit_their_arms_page(tmp_path):
    from harness.web import create_app

    db = f"sqlite:///{tmp_path / 'h.db'}"
    launched = harness_cli("launch", str(SPEC), "--target", "link", "--db", db,
                           "--public-url", "http://127.0.0.1")  # fmt: skip
    assert launched.exit_code == 0, launched.output
    app = create_app(db)
    seen = {}
    try:
        with ServedApp(app) as served, chromium() as driver:
            for worker in ("alice", "bob"):
                driver.get(f"{served.url}/p/statements-variants?participant={worker}")
                arm = _arm_of(db, worker)
                shown = _shown(driver)
                assert shown == EXPECTED[arm], (worker, arm)
                answer_all(driver, "likert")
                code = (
                    wait(driver, 20)
                    .until(lambda d: d.find_elements(By.ID, "completion-code"))[0]
                    .text
                )
                assert len(code) == 8
                seen[worker] = arm
    finally:
        app.extensions["harness"].close()
    assert seen["alice"] != seen["bob"]  # arrivals 0 and 1 of a permuted block
    engine = make_engine(db)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
        hashes = {a.name: a.instrument_id for a in study_arms(session, 1)}
    engine.dispose()
    assert table["instrument_hash"].nunique() == 2 and len(hashes) == 4
    assert table.groupby("worker_id")["instrument_hash"].nunique().max() == 1
