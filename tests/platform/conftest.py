"""Fixtures for the platform tests: the local MTurk service (and boto3 pointed at it), a task
server, a migrated SQLite store. Each platform's tests (tests/providers/) take them too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.factories import copy_sqlite_database, migrated_template
from tests.platform.factories import task_server
from tests.providers.mturk.local_service.factories import LocalMTurk
from tests.serving import ServedApp


@pytest.fixture
def mturk(tmp_path: Path) -> Iterator[LocalMTurk]:
    """A running local MTurk service with a fresh database."""
    service = LocalMTurk(tmp_path / "mturk.sqlite").start()
    yield service
    service.stop()


@pytest.fixture
def client(mturk: LocalMTurk) -> Any:
    """boto3's own MTurk client pointed at the local service."""
    return mturk.client()


@pytest.fixture
def sqlite_db(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, migrated_templates: dict[str, str]
) -> str:
    """A migrated SQLite store (a copy of the session's migrated template)."""
    url = f"sqlite:///{tmp_path / 'harness.db'}"
    copy_sqlite_database(migrated_template(migrated_templates, "sqlite", tmp_path_factory), url)
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
