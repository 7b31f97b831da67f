"""Shared fixtures: thin wrappers over factory functions in `tests/factories.py`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.factories import (
    WS353_DIR,
    create_postgres_database,
    drop_postgres_database,
    postgres_available,
    sqlite_url,
)

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":  # CI explores the same examples every run; locally, new ones
    settings.load_profile("ci")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first: with tests spread over workers (pytest-xdist), the longest ones start
    at once instead of leaving one worker busy at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def ws353_dir() -> Path:
    """The original WS353 distribution: the copy bundled in harness/datasets/data/ws353."""
    if not WS353_DIR.is_dir():
        pytest.fail(f"the bundled WS353 data is missing from {WS353_DIR}")
    return WS353_DIR


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database on each backend: a SQLite file, and a fresh PostgreSQL database.

    Without a PostgreSQL server the PostgreSQL case is skipped, except under CI=true, where a
    missing server is a failure.
    """
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    if not postgres_available():
        message = "PostgreSQL is not answering at 127.0.0.1:5432 (run scripts/postgres.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """A database on each backend, migrated to the newest schema."""
    from harness.store.migrations import upgrade

    upgrade(empty_database_url)
    return empty_database_url


@pytest.fixture
def engine(database_url: str) -> Iterator[Any]:
    """An engine on the migrated database of each backend, disposed after the test."""
    from harness.store import make_engine

    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def browser_available() -> None:
    """Skip without Chromium and chromedriver, except under CI=true, where that is a failure."""
    from tests.browser import CHROMEDRIVER, CHROMIUM, chromium_available

    if chromium_available():
        return
    message = (
        f"Chromium or chromedriver not found ({CHROMIUM}, {CHROMEDRIVER}); run scripts/setup.sh"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)
