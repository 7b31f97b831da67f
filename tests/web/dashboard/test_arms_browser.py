"""The dashboard of a study with arms in a real Chromium (issue #18): a study link with two
arms, worked through the participant pages while the study page is open, shows without
reloading each arm's progress (workers, judgments, items at their raters per item), each
arm's alpha (never the arms pooled), and each worker's arm in the workers table; a worker's
page names their arm."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from harness.web.dashboard.headline import headline_lines
from tests.browser import chromium, chromium_available
from tests.factories import migrated_sqlite
from tests.providers.link.arm_study import (
    Posted,
    arms_spec,
    careful_long_careless_short,
    http_fetch,
    launch,
    work_all,
)
from tests.serving import ServedApp
from tests.web.dashboard.factories import PASSWORD, SETTINGS
from tests.web.dashboard.test_browser import text, wait_for

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="Chromium or chromedriver not found (run scripts/setup.sh)"
)
ITEMS, RATERS = 8, 2


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, str, Any, Any]]:
    """The task server with the dashboard, and the study with arms launched on a link."""
    from harness.web import create_app

    db = migrated_sqlite(tmp_path / "h.db")
    app = create_app(db, dashboard=SETTINGS)
    server = ServedApp(app).start()
    spec = arms_spec(tmp_path, items=ITEMS, raters=RATERS)
    launch(spec, db, public_url=server.url)
    try:
        yield server.url, db, spec, app
    finally:
        server.stop()
        app.extensions["harness"].close()


def rows_text(driver: Any, selector: str) -> list[str]:
    return list(
        driver.execute_script(
            f"return Array.from(document.querySelectorAll('{selector}'))"
            ".map(function (n) { return n.textContent.trim(); });"
        )
    )


@pytest.mark.slow
def test_each_arms_progress_alpha_and_workers_show_live(served):
    url, db, spec, app = served
    with chromium() as driver:
        driver.get(f"{url}/dashboard/login")
        driver.find_element("id", "password").send_keys(PASSWORD)
        driver.find_element("id", "login").click()
        wait_for(lambda: "Studies" in driver.title, "the studies list after logging in")
        driver.get(f"{url}/dashboard/study/small")
        wait_for(lambda: text(driver, "live") == "live", "the event stream to connect")
        assert rows_text(driver, "#arms-progress td:first-child") == ["long (base)", "short"]
        assert text(driver, "fig-alpha-arm-long") == "not yet"
        assert driver.find_elements("id", "fig-alpha") == []  # no alpha of the arms pooled
        driver.execute_script("window.notReloaded = true;")
        done: list[Posted] = []
        http = requests.Session()
        workers = [f"P{i}" for i in range(4)]
        crowd = threading.Thread(
            target=lambda: done.append(
                work_all(
                    http_fetch(http, url),
                    db,
                    spec,
                    workers,
                    careful_long_careless_short(items=ITEMS),
                )
            )
        )
        crowd.start()
        try:
            wait_for(
                lambda: any(t != "0" for t in rows_text(driver, ".arm-judgments")),
                "judgments counted per arm",
            )
        finally:
            crowd.join()
        posted = done[0]
        # 4 items per HIT and 2 HITs per arm, 2 raters each: every item (and each HIT's
        # identical pair) of every arm at its raters
        wait_for(
            lambda: rows_text(driver, ".arm-items") == ["10 of 10", "10 of 10"],
            "every arm's items at their raters per item",
        )
        assert rows_text(driver, ".arm-workers") == ["2", "2"]
        wait_for(
            lambda: (
                "[" in text(driver, "fig-alpha-arm-long")
                and "[" in text(driver, "fig-alpha-arm-short")
            ),
            "each arm's alpha",
        )
        long = float(text(driver, "fig-alpha-arm-long").split()[0])
        short = float(text(driver, "fig-alpha-arm-short").split()[0])
        assert long > short  # the careful arm agrees more
        wait_for(lambda: len(rows_text(driver, "#workers tbody tr")) == 4, "every worker")
        shown = dict(
            zip(
                rows_text(driver, "#workers tbody td:first-child"),
                rows_text(driver, ".worker-arm"),
                strict=True,
            )
        )
        assert shown == posted.arms
        lines = driver.execute_script(
            "return Array.from(document.querySelectorAll('#alpha-plot .arm-line'))"
            ".map(function (n) { return [n.dataset.arm, n.getAttribute('points')]; });"
        )
        assert [arm for arm, _ in lines] == ["long", "short"] and all(p for _, p in lines)
        assert driver.execute_script("return window.notReloaded === true;")
        watcher = app.extensions["harness.web.dashboard"].watcher  # harness status --watch's lines
        watched = headline_lines(watcher.snapshot(1))
        assert any(line.startswith("  alpha (interval) of arm long: 0.") for line in watched)
        assert "  arm short: 2 workers, " in "\n".join(watched)
        worker = next(w for w, arm in posted.arms.items() if arm == "short")
        driver.get(f"{url}/dashboard/study/small/worker/{worker}")
        wait_for(lambda: driver.find_elements("id", "worker-arm"), "the worker's page")
        assert text(driver, "worker-arm") == "short"
