"""Shared fixtures: thin wrappers over factory functions in `tests/factories.py`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import WS353_DIR


@pytest.fixture(scope="session")
def ws353_dir() -> Path:
    """The original WS353 distribution, read from ../shared/data/ws353 (never copied here)."""
    if not WS353_DIR.is_dir():
        pytest.fail(f"WS353 data not found at {WS353_DIR}; the tests read it from ../shared/data")
    return WS353_DIR
