"""What the serving benchmarks share (scripts/load_test.py, scripts/bench_task_requests.py): a
fresh store for one run, and the WS353 reproduction's spec cut to the benchmark's HITs.

Loopback only: the PostgreSQL server this machine runs (trust auth), a database per run."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import yaml

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


@contextmanager
def fresh_store(kind: str, directory: Path, prefix: str) -> Iterator[str]:
    """An empty store (not migrated): the SQLite file ``directory/harness.db``, or a PostgreSQL
    database named ``prefix`` and a random suffix, dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{directory / 'harness.db'}"
        return
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield POSTGRES_ADMIN.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def ws353_spec(name: str, items_per_hit: int, raters: int) -> dict[str, Any]:
    """The WS353 reproduction's spec with ``items_per_hit`` pairs per HIT, ``raters`` raters per
    pair, a repeat gap that fits the HIT and a one-second time floor (simulated workers are
    quick), as a dict to change further and write."""
    spec = yaml.safe_load((ROOT / "task_specs" / "ws353_reproduction.yaml").read_text())
    spec["study"]["name"] = name
    spec["guidelines"]["file"] = str(ROOT / "task_specs" / "guidelines" / "ws353.txt")
    spec["items_per_hit"] = items_per_hit
    spec["raters_per_item"] = raters
    spec["controls"]["repeated"]["min_gap"] = max(2, items_per_hit // 3)
    spec["hit"]["min_seconds"] = 1
    return spec
