"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium through Playwright):
it renders, every plot shows, nothing is fetched from elsewhere, and it prints."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from tests.characterize import factories
from tests.factories import WS353_DIR, WS353_SYSTEMS_DIR

CHROMIUM = Path(os.environ.get("HARNESS_CHROMIUM", "/usr/bin/chromium"))
PLOTS = 5  # crescent, means, sds, resolution, per-rater rho

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def report_html(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("browser")
    inputs = factories.write_inputs(directory)
    flagged = directory / "flagged.txt"
    flagged.write_text("w003\nw011\n")
    out = directory / "report"
    result = CliRunner().invoke(main, [
        "characterize", "--new", str(inputs["new"]), "--original", f"ws353:{WS353_DIR}",
        "--resolution", str(inputs["resolution"]), "--system", str(WS353_SYSTEMS_DIR),
        "--flagged", str(flagged), "--bootstrap", "200", "--quiet", "--out", str(out),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out / "report.html"


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file() and shutil.which("chromium") is None:
        message = f"no Chromium at {CHROMIUM} (scripts/setup.sh installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        yield instance
        instance.close()


def test_the_report_renders_with_every_plot_shown(browser, report_html, tmp_path):
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report_html.as_uri())
    page.wait_for_load_state("load")
    images = page.evaluate(
        "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert len(images) == PLOTS
    assert all(complete and width > 0 and height > 0 for complete, width, height in images)
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    headings = page.eval_on_selector_all("h2", "nodes => nodes.map(n => n.textContent)")
    for title in ("Summary", "Measurement procedure cards", "Repeatability", "Precision",
                  "Rank stability", "Reproducibility", "Resolution",
                  "Systems measured by the instrument", "Screening impact"):  # fmt: skip
        assert title in headings
    meanings = page.eval_on_selector_all("p.meaning", "nodes => nodes.length")
    assert meanings == len(headings)
    wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not wide, "the report scrolls sideways at 1100 px"
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    page.close()


def test_the_report_prints(browser, report_html, tmp_path):
    page = browser.new_page()
    page.goto(report_html.as_uri())
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    pdf = tmp_path / "report.pdf"
    page.pdf(path=str(pdf), format="A4")
    assert pdf.read_bytes()[:4] == b"%PDF" and pdf.stat().st_size > 50_000
    page.close()
