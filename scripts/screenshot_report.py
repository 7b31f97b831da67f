"""The screenshot of a report's top for docs/characterize.md (docs/img/report.png), made from
the current code: the documented demo inputs (scripts/simulate_ws353_studies.py), the
documented `harness characterize` command, and the report opened in headless Chromium.

Run: .venv/bin/python scripts/screenshot_report.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import chromium  # noqa: E402

SIZE = (1200, 1400)  # the verdict, the summary table and the first plots


def main() -> None:
    out = ROOT / "docs" / "img" / "report.png"
    with tempfile.TemporaryDirectory() as work:
        demo = Path(work) / "demo"
        python = [sys.executable]
        subprocess.run(
            [*python, str(ROOT / "scripts" / "simulate_ws353_studies.py"), "--out", str(demo)],
            check=True,
            cwd=ROOT,
        )
        subprocess.run(
            [*python, "-m", "harness", "characterize", "--new", str(demo / "reproduction.csv")]
            + ["--original", "ws353", "--resolution", str(demo / "resolution.csv")]
            + ["--system", "ws353", "--screen", "task_specs/ws353_reproduction.yaml"]
            + ["--out", str(demo / "report"), "--quiet"],
            check=True,
            cwd=ROOT,
        )
        with chromium(SIZE) as driver:
            driver.get((demo / "report" / "report.html").as_uri())
            driver.save_screenshot(str(out))
    print(out)


if __name__ == "__main__":
    main()
