"""Factory functions the tests build on (fixtures in conftest.py wrap them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_DATA = PROJECT_ROOT / "harness" / "datasets" / "data"  # shipped in the package
WS353_DIR = BUNDLED_DATA / "ws353"
WS353_SYSTEMS_DIR = BUNDLED_DATA / "ws353-systems"

TASK_SPECS = PROJECT_ROOT / "task_specs"
POSTGRES_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess that must run this checkout's harness: this process's,
    with the checkout first on PYTHONPATH (what was there kept: a moved clock, for one), and
    ``extra`` on top."""
    import os

    path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def sqlite_url(directory: Path) -> str:
    """A fresh SQLite database file in ``directory``."""
    return f"sqlite:///{directory / 'harness.db'}"


def create_postgres_database(template: str | None = None) -> str:
    """A new PostgreSQL database of its own (so parallel test runs never collide): empty, or a
    copy of the database at URL ``template`` (which nobody may be connected to)."""
    import uuid

    import sqlalchemy as sa

    name = f"harness_t_{uuid.uuid4().hex[:10]}"
    copy = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
    admin = sa.create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"{copy}'))
    admin.dispose()
    return POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


def copy_sqlite_database(source: str, target: str) -> None:
    """Copy the SQLite database at URL ``source`` to URL ``target`` (SQLite's backup API: a
    consistent copy whatever its journal holds)."""
    import sqlite3

    def path(url: str) -> str:
        return url.removeprefix("sqlite:///")

    with sqlite3.connect(path(source)) as src, sqlite3.connect(path(target)) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def migrated_template(templates: dict[str, str], backend: str, factory: Any) -> str:
    """The URL of ``backend``'s migrated template database in ``templates`` (the session's, see
    the `migrated_templates` fixture), made and migrated on first use (``factory``: pytest's
    tmp_path_factory, for the SQLite file)."""
    from harness.store.migrations import upgrade

    if backend not in templates:
        if backend == "sqlite":
            url = sqlite_url(factory.mktemp("template"))
        else:
            url = create_postgres_database()
        upgrade(url)
        templates[backend] = url
    return templates[backend]


_SQLITE_TEMPLATE: list[str] = []


def migrated_sqlite(path: Path) -> str:
    """The URL of a new SQLite store at ``path``, at the newest schema: a copy of a store
    migrated once per test process (for tests that are not about the migrations; a copy costs
    a fraction of running them)."""
    if not _SQLITE_TEMPLATE:
        import atexit
        import shutil
        import tempfile

        from harness.store.migrations import upgrade

        folder = Path(tempfile.mkdtemp(prefix="harness-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        url = sqlite_url(folder)
        upgrade(url)
        _SQLITE_TEMPLATE.append(url)
    url = f"sqlite:///{path}"
    copy_sqlite_database(_SQLITE_TEMPLATE[0], url)
    return url


def drop_postgres_database(url: str) -> None:
    import sqlalchemy as sa

    name = url.rsplit("/", 1)[1]
    admin = sa.create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def postgres_available() -> bool:
    return answers(POSTGRES_ADMIN_URL)


def answers(url: str) -> bool:
    """Whether the PostgreSQL database at ``url`` takes a connection (waiting 3 s at most)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool, connect_args={"connect_timeout": 3})
    try:
        with engine.connect():
            return True
    except sa.exc.OperationalError:
        return False
    finally:
        engine.dispose()


def write_spec(directory: Path, text: str, name: str = "spec.yaml") -> Path:
    """Write a spec (and nothing else) into ``directory``; returns its path."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL_RATING_SPEC = """\
study:
  name: tiny
type: rating
items:
  csv: items.csv
  display: [left, right]
guidelines:
  text: Rate how similar the two words are.
scale:
  min: 0
  max: 10
raters_per_item: 3
items_per_hit: 2
hit:
  title: Rate words
  description: Rate how similar two words are.
  reward: "0.10"
"""

MINIMAL_ITEMS = "item_id,left,right\na,cat,dog\nb,car,tree\nc,sun,moon\nd,cup,mug\n"
