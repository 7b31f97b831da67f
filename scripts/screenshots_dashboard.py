"""Screenshots of the dashboard for docs/dashboard.md: the studies list, a study page while a
simulated crowd works (live screening blocking as it goes), and a worker's page.

Launches a small study on the local MTurk service with the task server and the dashboard on
loopback, lets a crowd (careful, sloppy and straight-lining workers) do two thirds of it,
opens the pages in headless Chromium and saves docs/img/dashboard-*.png.
Run: .venv/bin/python scripts/screenshots_dashboard.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import chromium  # noqa: E402
from tests.web.dashboard.factories import PASSWORD, STUDY, LiveStudy  # noqa: E402


def main() -> None:
    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        mix = {"careful": 7, "sloppy": 1, "straight_liner": 2}
        live = LiveStudy(Path(directory), crowd_mix=mix, items=60, raters=5).start()
        try:
            live.crowd(rounds=4)
            with chromium((1280, 1800)) as driver:
                driver.get(f"{live.url}/dashboard/login")
                driver.find_element("id", "password").send_keys(PASSWORD)
                driver.find_element("id", "login").click()
                time.sleep(0.5)
                driver.set_window_size(1280, 400)
                driver.save_screenshot(str(out / "dashboard-studies.png"))
                driver.set_window_size(1280, 1800)
                driver.get(f"{live.url}/dashboard/study/{STUDY}")
                time.sleep(1.5)  # the event stream connects
                driver.save_screenshot(str(out / "dashboard-study.png"))
                worker = driver.find_elements("css selector", "#workers tr.blocked td a")
                target = worker[0].text if worker else "AW001"
                driver.set_window_size(1280, 1100)
                driver.get(f"{live.url}/dashboard/study/{STUDY}/worker/{target}")
                time.sleep(0.5)
                driver.save_screenshot(str(out / "dashboard-worker.png"))
        finally:
            live.stop()
    for name in ("studies", "study", "worker"):
        print(out / f"dashboard-{name}.png")


if __name__ == "__main__":
    main()
