"""Shared fixtures: thin wrappers over factory functions in `tests/factories.py`."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests import postgres_copies
from tests.factories import (
    WS353_DIR,
    copy_sqlite_database,
    create_postgres_database,
    drop_postgres_database,
    migrated_template,
    postgres_available,
    sqlite_url,
)

# No example is judged by how long it took (Hypothesis's 200 ms deadline, its too-slow health
# check): on a loaded machine every example is slower, and none is wrong for it.
settings.register_profile("harness", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("harness"), derandomize=True, print_blob=True)
# CI explores the same examples every run; locally, new ones
settings.load_profile("ci" if os.environ.get("CI") == "true" else "harness")


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
def backend(request: pytest.FixtureRequest) -> str:
    """Each store backend in turn. Without a PostgreSQL server the PostgreSQL case is skipped,
    except under CI=true, where a missing server is a failure."""
    if request.param == "postgresql" and not _postgres_answers():
        message = "PostgreSQL is not answering at 127.0.0.1:5432 (run scripts/postgres.sh)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return str(request.param)


@functools.cache
def _postgres_answers() -> bool:
    """Whether the PostgreSQL server answers, asked once per test process."""
    return postgres_available()


@pytest.fixture
def empty_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database on each backend: a SQLite file, and a fresh PostgreSQL database."""
    if backend == "sqlite":
        yield sqlite_url(tmp_path)
        return
    url = create_postgres_database()
    try:
        yield url
    finally:
        postgres_copies.drop_later(url)


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Per backend, a database migrated to the newest schema once per test process (made on
    first use), which each test's `database_url` copies: a copy costs a fraction of running
    the migrations."""
    made: dict[str, str] = {}
    yield made
    postgres_copies.finish()  # no copy of a template is being made as it is dropped
    if "postgresql" in made:
        drop_postgres_database(made["postgresql"])


@pytest.fixture
def database_url(
    backend: str,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    migrated_templates: dict[str, str],
) -> Iterator[str]:
    """A database on each backend, at the newest schema: a copy of the migrated template."""
    template = migrated_template(migrated_templates, backend, tmp_path_factory)
    if backend == "sqlite":
        url = sqlite_url(tmp_path)
        copy_sqlite_database(template, url)
        yield url
        return
    url = postgres_copies.fresh_copy(template)
    try:
        yield url
    finally:
        postgres_copies.drop_later(url)


@pytest.fixture(scope="session")
def built_stores() -> Iterator[dict[tuple[str, str], tuple[str, Any]]]:
    """Stores made once per test process by `store_copy` (per key and backend), and what
    their builder returned; the PostgreSQL ones are dropped at the end."""
    made: dict[tuple[str, str], tuple[str, Any]] = {}
    yield made
    postgres_copies.finish()  # no copy of a store is being made as it is dropped
    for url, _ in made.values():
        if url.startswith("postgresql"):
            drop_postgres_database(url)


@pytest.fixture
def store_copy(
    backend: str,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    migrated_templates: dict[str, str],
    built_stores: dict[tuple[str, str], tuple[str, Any]],
) -> Iterator[Any]:
    """``store_copy(key, build)``: a copy, for this test alone, of the store ``build(url,
    folder)`` filled once per test process and backend (on a copy of the migrated template; it
    must leave no connection open), and what ``build`` returned. For tests that read (or change
    their own copy of) the same launched, worked study: the copy costs a fraction of making it."""
    copies: list[str] = []

    def copy(key: str, build: Any) -> tuple[str, Any]:
        if (key, backend) not in built_stores:
            template = migrated_template(migrated_templates, backend, tmp_path_factory)
            folder = tmp_path_factory.mktemp(key)
            url = _copy_store(template, backend, sqlite_url(folder))
            built_stores[(key, backend)] = (url, build(url, folder))
        url, built = built_stores[(key, backend)]
        copies.append(_copy_store(url, backend, sqlite_url(tmp_path)))
        return copies[-1], built

    yield copy
    for url in copies:
        if backend == "postgresql":
            postgres_copies.drop_later(url)


def _copy_store(url: str, backend: str, sqlite_target: str) -> str:
    """A copy of the store at ``url`` (nobody connected to it): the SQLite file
    ``sqlite_target``, or a new PostgreSQL database."""
    if backend == "sqlite":
        copy_sqlite_database(url, sqlite_target)
        return sqlite_target
    return postgres_copies.fresh_copy(url)


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
        f"Chromium or chromedriver not found ({CHROMIUM}, {CHROMEDRIVER}); "
        "run scripts/setup.sh --dev"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)
