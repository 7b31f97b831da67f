"""A command that only reads a spec, and a command that refuses, start without the heavy
libraries: no table library, no database ORM, no web framework (each costs a person a
noticeable wait on every run). Each command runs in a fresh interpreter, as a person runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.factories import PROJECT_ROOT, checkout_env

TABLES = ("pandas", "pyarrow", "scipy", "matplotlib")
DATABASE = ("sqlalchemy", "sqlmodel", "alembic", "psycopg")
CLIENTS = ("boto3", "botocore", "flask", "werkzeug")
NUMPY_HEAVY = ("numpy.fft", "numpy.polynomial", "numpy.ma", "numpy.testing")


def run_in_fresh_interpreter(args: list[str], cwd: Path, **env: str) -> tuple[int, str, list[str]]:
    """Exit code, output and the modules imported by ``harness ARGS`` in a new process."""
    code = (
        "import json, sys; from click.testing import CliRunner; from harness.cli import main;"
        f"r = CliRunner().invoke(main, {args!r});"
        "print(json.dumps([r.exit_code, r.output, sorted(sys.modules)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env=checkout_env(**env),
    )
    exit_code, output, modules = json.loads(done.stdout.strip().splitlines()[-1])
    return exit_code, output, modules


def heavy(modules: list[str], roots: tuple[str, ...], parts: tuple[str, ...] = ()) -> list[str]:
    """The modules under any of ``roots`` (whole packages) or ``parts`` (submodules)."""
    return sorted(
        m
        for m in modules
        if m.split(".")[0] in roots or any(m == p or m.startswith(p + ".") for p in parts)
    )


def test_validate_imports_no_table_library_no_database_and_no_platform_client():
    exit_code, output, modules = run_in_fresh_interpreter(
        ["validate", "task_specs/ws353_reproduction.yaml"], PROJECT_ROOT
    )
    assert exit_code == 0, output
    assert "instrument: " in output
    assert heavy(modules, TABLES + DATABASE + CLIENTS, NUMPY_HEAVY) == []


@pytest.mark.parametrize(
    "command",
    [
        ["status", "some-study"],
        ["sync", "some-study"],
        ["review", "some-study"],
        ["expire", "some-study"],
        ["pause", "some-study"],
        ["resume", "some-study"],
        ["export", "some-study"],
        ["compare-arms", "some-study"],
        ["screen", "some-study"],
        ["serve"],
    ],
    ids=lambda command: command[0],
)
def test_a_missing_store_is_refused_before_the_table_library_and_the_orm(command, tmp_path):
    exit_code, output, modules = run_in_fresh_interpreter(
        [*command, "--db", str(tmp_path / "none.db")], tmp_path
    )
    assert exit_code == 1
    assert f"there is no store at {tmp_path / 'none.db'}" in output
    assert heavy(modules, TABLES + ("sqlmodel",) + CLIENTS, ("sqlalchemy.orm",)) == []
    assert not (tmp_path / "none.db").exists()


def test_the_dashboard_without_a_password_off_loopback_refuses_before_the_app(tmp_path):
    exit_code, output, modules = run_in_fresh_interpreter(
        ["dashboard", "--host", "0.0.0.0"], tmp_path, HARNESS_DASHBOARD_PASSWORD=""
    )
    assert exit_code == 1
    assert "the dashboard on 0.0.0.0 needs a password" in output
    assert heavy(modules, TABLES + DATABASE + ("boto3", "botocore")) == []
    assert "harness.web.dashboard.app" not in modules


def test_status_of_a_launched_study_imports_no_table_library_no_orm_and_no_platform_client(
    tmp_path,
):
    from tests.factories import migrated_sqlite
    from tests.platform.factories import harness_cli, launch_args, small_spec
    from tests.providers.mturk.local_service.factories import LocalMTurk

    mturk = LocalMTurk(tmp_path / "mturk.sqlite").start()
    try:
        db = migrated_sqlite(tmp_path / "h.db")
        launched = harness_cli(*launch_args(small_spec(tmp_path, items=4), mturk.url, db))
        assert launched.exit_code == 0, launched.output
    finally:
        mturk.stop()
    exit_code, output, modules = run_in_fresh_interpreter(["status", "small", "--db", db], tmp_path)
    assert exit_code == 0, output
    assert output.startswith("study small on local: running")
    orm = ("sqlmodel", "pydantic")
    assert heavy(modules, TABLES + ("numpy", "jinja2") + orm + CLIENTS, ("sqlalchemy.orm",)) == []


@pytest.mark.parametrize("command", ["launch", "preview", "validate"])
def test_a_bad_spec_is_refused_before_the_database_and_the_platform_clients(command, tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("study: {name: bad}\ntype: rating\n")
    exit_code, output, modules = run_in_fresh_interpreter([command, str(spec)], tmp_path)
    assert exit_code == 1
    assert f"{spec}:1: items: is required" in output
    assert heavy(modules, TABLES + DATABASE + CLIENTS) == []


def test_the_spec_names_the_bundled_systems_as_the_datasets_do():
    from harness.datasets.ws353_systems import BUNDLED_SYSTEMS
    from harness.spec import references

    assert references.BUNDLED_SYSTEMS == BUNDLED_SYSTEMS
