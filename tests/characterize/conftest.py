"""Fixtures for characterization tests: thin wrappers over `tests.characterize.factories`."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.characterize import factories


@pytest.fixture(scope="session")
def ws353_table(ws353_dir) -> pd.DataFrame:
    return factories.ws353().judgments


@pytest.fixture(scope="session")
def reproduction_table() -> pd.DataFrame:
    return factories.reproduction()


@pytest.fixture(scope="session")
def resolution_table() -> pd.DataFrame:
    return factories.resolution_study()


@pytest.fixture(scope="session")
def system_scores(ws353_dir) -> dict[str, pd.Series]:
    return factories.system_scores()


@pytest.fixture(params=["ws353", "reproduction"])
def any_table(request, ws353_table, reproduction_table) -> pd.DataFrame:
    """Each figure is checked on the original WS353 and on a simulated reproduction."""
    return ws353_table if request.param == "ws353" else reproduction_table
