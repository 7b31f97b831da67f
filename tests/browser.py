"""A real headless Chromium (Debian's chromium + chromedriver) driven through Selenium, shared by
the task-page and report tests and scripts/screenshots.py."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
PHONE = (390, 844)
NARROW_PHONE = (360, 780)
"""The narrowest phone participant pages are made for: no horizontal scrolling at this width."""
DESKTOP = (1200, 900)


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


_SHARED: dict[tuple[int, int], Any] = {}
"""This test process's idle browser per window size (a new Chromium costs about a second)."""


@contextmanager
def chromium(size: tuple[int, int] = DESKTOP) -> Iterator[Any]:
    """A headless Chromium (Selenium WebDriver) on a blank page with no cookies, and no storage
    for the origin it was last on. One per window size per test process, reused: a use that
    fails quits it, and the next use starts a new one with a fresh profile."""
    driver = _SHARED.pop(size, None) or _start(size)
    clean = False
    try:
        yield driver
        clean = _reset(driver)
    finally:
        if clean and size not in _SHARED:
            _SHARED[size] = driver
        else:
            _quit(driver)


def _start(size: tuple[int, int]) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if _quit_all not in _EXIT_HOOKS:
        atexit.register(_quit_all)
        _EXIT_HOOKS.append(_quit_all)
    profile = tempfile.mkdtemp(prefix="harness-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    service = Service(executable_path=CHROMEDRIVER, log_output=os.devnull)
    driver = webdriver.Chrome(options=options, service=service)
    driver.harness_profile = profile
    driver.set_page_load_timeout(120)
    if size[0] < 500:  # headless windows are at least 500 px wide: emulate a phone
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True},
        )
    return driver


def _reset(driver: Any) -> bool:
    """Back to one blank tab with no cookies and the last origin's storage cleared; False if
    the browser is in no state to be reused."""
    try:
        handles = driver.window_handles
        for extra in handles[1:]:
            driver.switch_to.window(extra)
            driver.close()
        driver.switch_to.window(handles[0])
        origin = driver.execute_script("return location.origin")
        if origin and origin.startswith("http"):
            driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
        driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        driver.get("about:blank")
        return True
    except Exception:  # an alert left open, a crashed tab: start afresh next time
        return False


def _quit(driver: Any) -> None:
    try:
        driver.quit()
    finally:
        shutil.rmtree(getattr(driver, "harness_profile", ""), ignore_errors=True)


def _quit_all() -> None:
    while _SHARED:
        _quit(_SHARED.popitem()[1])


_EXIT_HOOKS: list[Any] = []
