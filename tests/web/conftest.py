"""Fixtures for the task server: thin wrappers over `tests/web/factories.py`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.factories import CHROMEDRIVER, CHROMIUM, chromium_available


@pytest.fixture
def make_app(database_url: str) -> Iterator[Any]:
    """Build task-server apps on the migrated database of each backend; closed afterwards."""
    from harness.web import create_app

    apps = []

    def build(**options: Any) -> Any:
        app = create_app(database_url, **options)
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.extensions["harness"].close()


@pytest.fixture
def browser_available() -> None:
    """Skip without Chromium and chromedriver, except under CI=true, where that is a failure."""
    if chromium_available():
        return
    message = (
        f"Chromium or chromedriver not found ({CHROMIUM}, {CHROMEDRIVER}); run scripts/setup.sh"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)
