"""Fixtures of the dashboard tests: thin wrappers over `tests/dashboard/factories.py`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.dashboard.factories import LiveStudy


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveStudy]:
    """A small study launched on the local MTurk service, pages and dashboard served."""
    study = LiveStudy(tmp_path).start()
    yield study
    study.stop()
