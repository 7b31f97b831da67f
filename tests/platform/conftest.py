"""Fixtures for the local MTurk conformance tests: thin wrappers over `factories.py`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform.factories import LocalMTurk


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
