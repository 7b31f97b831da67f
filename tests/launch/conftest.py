"""Fixtures for launch, sync and review tests: the local MTurk service and a task server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.launch.factories import task_server
from tests.platform.conftest import client, mturk  # noqa: F401  (the same fixtures)
from tests.serving import ServedApp


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    """A migrated SQLite store."""
    from harness.store.migrations import upgrade

    url = f"sqlite:///{tmp_path / 'harness.db'}"
    upgrade(url)
    return url


@pytest.fixture
def tasks(database_url: str) -> Iterator[ServedApp]:
    """The task server (harness.web) on the store of each backend."""
    server, app = task_server(database_url)
    yield server
    server.stop()
    app.extensions["harness"].close()


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session
