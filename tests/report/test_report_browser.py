"""The HTML report in a real headless Chromium (Debian's chromium through Selenium): it renders,
every plot shows, nothing is fetched from elsewhere, and it prints."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from tests.browser import PHONE, chromium
from tests.characterize import factories
from tests.factories import WS353_DIR, WS353_SYSTEMS_DIR

PLOTS = 6  # crescent, means, sds, psychometric, resolution, per-rater rho

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("browser_available")]


@pytest.fixture(scope="module")
def report_html(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("browser")
    inputs = factories.write_inputs(directory)
    flagged = directory / "flagged.txt"
    flagged.write_text("w003\nw011\n")
    out = directory / "report"
    result = CliRunner().invoke(
        main,
        [
            "characterize",
            "--new",
            str(inputs["new"]),
            "--original",
            f"ws353:{WS353_DIR}",
            "--resolution",
            str(inputs["resolution"]),
            "--system",
            str(WS353_SYSTEMS_DIR),
            "--flagged",
            str(flagged),
            "--bootstrap",
            "200",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return out / "report.html"


def test_the_report_renders_with_every_plot_shown(report_html, tmp_path):
    with chromium((1100, 1400)) as driver:
        driver.get(report_html.as_uri())
        images = driver.execute_script(
            "return Array.from(document.images)"
            ".map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
        )
        assert len(images) == PLOTS
        assert all(complete and width > 0 and height > 0 for complete, width, height in images)
        fetched = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
        assert [u for u in fetched if not u.startswith(("file:", "data:"))] == []
        headings = driver.execute_script(
            "return Array.from(document.querySelectorAll('h2')).map(n => n.textContent)"
        )
        for title in (
            "Summary",
            "Measurement procedure cards",
            "Repeatability",
            "Precision",
            "Rank stability",
            "Reproducibility",
            "Resolution",
            "Systems measured by the instrument",
            "Screening impact",
        ):
            assert title in headings
        meanings = driver.execute_script("return document.querySelectorAll('p.meaning').length")
        assert meanings == len(headings)
        wide = driver.execute_script(
            "return document.documentElement.scrollWidth > window.innerWidth"
        )
        assert not wide, "the report scrolls sideways at 1100 px"
        shot = tmp_path / "report.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 50_000


def test_the_report_prints_without_its_navigation(report_html, tmp_path):
    with chromium() as driver:
        driver.get(report_html.as_uri())
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        nav = driver.execute_script(
            "return getComputedStyle(document.querySelector('nav')).display"
        )
        assert nav == "none"
        pdf = base64.b64decode(driver.print_page())
        assert pdf[:4] == b"%PDF" and len(pdf) > 50_000


def test_the_report_reads_on_a_phone_with_the_verdict_first(report_html, tmp_path):
    with chromium((1100, 1400)) as driver:
        # A phone: 390 CSS pixels wide, mobile (the page's viewport declaration applies).
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
        )
        driver.get(report_html.as_uri())
        width = driver.execute_script("return window.innerWidth")
        assert width == 390, "the report declares no viewport: a phone shows it zoomed out"
        wide = driver.execute_script(
            "return document.documentElement.scrollWidth > window.innerWidth + 1"
        )
        assert not wide, "the page scrolls sideways on a phone (wide tables scroll in a box)"
        first = driver.execute_script("return document.querySelector('p.meaning').textContent")
        assert first.startswith("Verdict: reproduction ") and "WS353" in first
        shot = tmp_path / "phone.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000


@pytest.fixture(scope="module")
def arms_report_html(tmp_path_factory) -> Path:
    from tests.report.test_arms_report import build_arms_study, characterize

    directory = tmp_path_factory.mktemp("arms")
    db = f"sqlite:///{directory / 'h.db'}"
    built = build_arms_study(directory, db)
    result = characterize(db, built["original"], directory / "report", "--quiet")
    assert result.exit_code == 0, result.output
    return directory / "report" / "report.html"


@pytest.mark.slow
def test_the_arms_section_reads_on_a_phone_verdict_first(arms_report_html, tmp_path):
    with chromium(PHONE) as driver:
        driver.get(arms_report_html.as_uri())
        assert driver.execute_script("return window.innerWidth") == PHONE[0]
        wide = driver.execute_script(
            "return document.documentElement.scrollWidth > window.innerWidth + 1"
        )
        assert not wide, "the page scrolls sideways on a phone (wide tables scroll in a box)"
        headings = driver.execute_script(
            "return Array.from(document.querySelectorAll('h2')).map(n => n.textContent)"
        )
        assert headings[:2] == ["Summary", "Arms"]
        section = driver.find_element("id", "arms")
        meaning = section.find_element("css selector", "p.meaning").text
        assert meaning.startswith("Arms short and long are not distinguishable with this many")
        cells = driver.execute_script(
            "return Array.from(document.querySelectorAll('#arms td')).map(n => n.textContent)"
        )
        assert "long" in cells and "short" in cells
        assert any(c.startswith("not distinguishable: -0.") for c in cells)
        driver.execute_script("document.getElementById('arms').scrollIntoView()")
        shot = tmp_path / "arms-phone.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
