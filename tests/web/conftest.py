"""Fixtures for the task server: thin wrappers over `tests/web/factories.py`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.factories import PlatformVouches


@pytest.fixture
def make_app(database_url: str) -> Iterator[Any]:
    """Build task-server apps on the migrated database of each backend; closed afterwards."""
    from harness.web import create_app

    apps = []

    def build(**options: Any) -> Any:
        """An app; unless given a ``verifier``, one whose platform vouches for every
        assignment (the tests of verification pass the real one)."""
        options.setdefault("verifier", PlatformVouches())
        app = create_app(database_url, **options)
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.extensions["harness"].close()
