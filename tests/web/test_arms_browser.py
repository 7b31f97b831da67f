"""Real headless Chromium (issue #18): two workers of a study with arms are put into different
arms and each sees, answers and submits their arm's page: the shipped statements_variants
spec, launched through the real CLI and served by the real task server, arriving by the same
study link, and on MTurk (the local service) with external hosting, where a worker who opens a
HIT of another arm is asked to return it and takes one of their own arm's group."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from sqlmodel import select

from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms, worker_arm
from harness.store.models import Worker
from tests.browser import chromium
from tests.factories import TASK_SPECS
from tests.platform.factories import WORKER_PROFILE, harness_cli, launch_args
from tests.providers.mturk.local_service.factories import LocalMTurk
from tests.serving import ServedApp, until_rechecked
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
    launched = harness_cli(
        "launch", str(SPEC), "--target", "link", "--db", db, "--public-url", "http://127.0.0.1"
    )
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
                    wait(driver).until(lambda d: d.find_elements(By.ID, "completion-code"))[0].text
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


def _acceptable(mturk, worker):
    listed = mturk.get("/worker/hits", workerId=worker, acceptable=1, **WORKER_PROFILE)
    listed = listed.json()["HITs"]
    return [h["HITId"] for h in listed]


def test_two_mturk_workers_in_different_arms_see_and_submit_their_arms_page(tmp_path):
    from harness.web import create_app

    db = f"sqlite:///{tmp_path / 'h.db'}"
    # threaded, as `harness mturk-local` is: Chromium holds idle connections to MTurk's site
    # open, which would keep a one-request-at-a-time server from the task server's calls (the
    # arm's qualification, the verification of each submission) until it lets them go
    mturk = LocalMTurk(tmp_path / "mturk.sqlite", threaded=True).start()
    app = create_app(db)
    seen, asked_back = {}, []
    try:
        with ServedApp(app) as served, chromium() as driver:
            launched = harness_cli(*launch_args(SPEC, mturk.url, db, "--public-url", served.url))
            assert launched.exit_code == 0, launched.output
            for worker in ("AALICE", "ABOB"):
                first = _acceptable(mturk, worker)[0]  # the first HIT listed: the arm ascending
                accepted = mturk.accept(first, worker, **WORKER_PROFILE)
                driver.get(accepted["ExternalURL"])
                arm = _arm_of(db, worker)
                if arm != "ascending":  # asked to return it, told which group is theirs
                    body = wait(driver).until(lambda d: d.find_element(By.TAG_NAME, "h1"))
                    assert body.text == "Please return this HIT"
                    assert "Nothing was recorded from this page." in driver.page_source
                    assert not driver.find_elements(By.CSS_SELECTOR, ".card")
                    returned = mturk.post(
                        f"/worker/assignments/{accepted['AssignmentId']}/return", workerId=worker
                    )
                    assert returned.status_code == 200
                    asked_back.append(worker)
                    mine = _acceptable(mturk, worker)  # MTurk now lists their arm's HITs only
                    assert first not in mine and len(mine) == 2
                    accepted = mturk.accept(mine[0], worker, **WORKER_PROFILE)
                    driver.get(accepted["ExternalURL"])
                assert _shown(driver) == EXPECTED[arm], (worker, arm)
                answer_all(driver, "likert")
                wait(driver).until(lambda d: "/mturk/externalSubmit" in d.current_url)
                seen[worker] = arm
            until_rechecked(app)
    finally:
        app.extensions["harness"].close()
        mturk.stop()
    assert seen["AALICE"] != seen["ABOB"]  # arrivals 0 and 1 of a permuted block
    assert asked_back  # at most one of the two arms is the arm of the HIT both took first
    engine = make_engine(db)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
    engine.dispose()
    assert table.groupby("worker_id")["instrument_hash"].nunique().to_dict() == {
        "AALICE": 1,
        "ABOB": 1,
    }
    assert table["instrument_hash"].nunique() == 2
