"""A local Prolific service on a loopback port, and a small study launched on it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from harness.providers.prolific.local_service import Settings, create_app
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec
from tests.serving import ServedApp


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
    spec = small_spec(tmp_path, hosting="external")
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
