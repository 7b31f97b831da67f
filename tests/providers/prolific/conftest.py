"""A local Prolific service on a loopback port, and a small study launched on it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from harness.providers.prolific.local_service import Settings, create_app
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec
from tests.serving import ServedApp

PAY = {"reward": "0.15", "duration": "3m"}
"""What a test study pays on Prolific: $0.15 for an estimated minute (a third of the 3 allowed),
$9.00 an hour, above Prolific's minimum of $8.00 (which the local service enforces too)."""


def prolific_spec(directory: Path, **extra: Any) -> Path:
    """`small_spec` for Prolific: external hosting, pay Prolific accepts."""
    return small_spec(directory, hosting="external", **(PAY | extra))


@pytest.fixture
def prolific(tmp_path) -> Iterator[Any]:
    app = create_app(Settings(db_path=tmp_path / "prolific-local.sqlite"))
    with ServedApp(app) as served:
        served.app = app
        yield served
    app.extensions["prolific_local"].close()


def post_to(path: str) -> Any:
    """Picks, for `ServedApp.hold`, the requests that POST to ``path`` (a regular expression)
    of the requester API."""
    return lambda environ: (
        environ["REQUEST_METHOD"] == "POST"
        and bool(re.fullmatch(f"/api/v1/{path}", environ["PATH_INFO"]))
    )


def faults(url: str, **switches: Any) -> None:
    requests.post(f"{url}/_control/faults", json=switches, timeout=5).raise_for_status()


@pytest.fixture
def launched(prolific, tmp_path):
    """The small spec (4 HITs x 2 raters) launched on the local service: (spec, db, output)."""
    spec = prolific_spec(tmp_path)
    db = migrated_sqlite(tmp_path / "h.db")
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--endpoint-url",
        prolific.url,
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
    )
    assert result.exit_code == 0, result.output
    return spec, db, result.output
