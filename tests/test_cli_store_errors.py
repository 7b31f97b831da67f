"""A store that is missing, unreachable or not there at all: every command that reads or updates a
launched study says so in one line and exits 1, never prints a traceback, and creates nothing
(issue 21's CLI reproducers; issue 16's `harness status` on a missing store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from tests.factories import postgres_available

COMMANDS = [
    ["status", "s"],
    ["sync", "s"],
    ["review", "s"],
    ["review", "s", "--dry-run"],
    ["screen", "s"],
    ["expire", "s"],
    ["simulate-workers", "s"],
    ["characterize", "--new", "s", "--original", "ws353", "--out", "report"],
    ["export", "s"],
    ["serve"],
    ["serve", "--no-screening"],
]


def run(command: list[str], db: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Exit code and output of ``harness COMMAND --db DB`` run in ``cwd``."""
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, [*command, "--db", db])
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), repr(result.exception)
    return result.exit_code, result.output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_store_file_that_does_not_exist_is_named_and_not_created(tmp_path, monkeypatch, command):
    missing = tmp_path / "typo.db"
    code, output = run(command, str(missing), tmp_path, monkeypatch)
    assert code == 1
    assert output.splitlines()[-1] == (
        f"Error: there is no store at {missing} (nothing was created there): give --db the "
        "store the study was launched with (or set $HARNESS_DATABASE_URL); `harness launch` "
        "creates a store"
    )
    assert not missing.exists()
    assert not list(tmp_path.glob("typo.db*"))


@pytest.mark.parametrize("command", [["status", "s"], ["sync", "s"], ["screen", "s"]])
def test_a_store_in_a_folder_that_does_not_exist_is_refused(tmp_path, monkeypatch, command):
    code, output = run(command, "/nonexistent/dir/x.db", tmp_path, monkeypatch)
    assert code == 1
    assert "Error: there is no store at /nonexistent/dir/x.db" in output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_an_unreachable_postgresql_server_is_one_clear_line(tmp_path, monkeypatch, command):
    code, output = run(command, "postgresql://postgres@127.0.0.1:9/x", tmp_path, monkeypatch)
    assert code == 1
    assert output.splitlines()[-1].startswith(
        "Error: postgresql+psycopg://postgres@127.0.0.1:9/x: cannot connect (connection failed"
    )
    assert output.rstrip().endswith("is the database running, and is --db right?")


@pytest.mark.parametrize("command", [["status", "s"], ["sync", "s"], ["review", "s"]])
def test_a_postgresql_database_that_does_not_exist_is_named(tmp_path, monkeypatch, command):
    if not postgres_available():
        pytest.skip("PostgreSQL is not answering at 127.0.0.1:5432")
    url = "postgresql://postgres@127.0.0.1:5432/harness_no_such_database"
    code, output = run(command, url, tmp_path, monkeypatch)
    assert code == 1
    assert output.splitlines()[-1] == (
        "Error: postgresql+psycopg://postgres@127.0.0.1:5432/harness_no_such_database: the "
        "database does not exist; create it (e.g. createdb) or fix --db"
    )


def test_reading_a_stores_revision_creates_no_store(tmp_path, monkeypatch):
    """Issue 39: `harness db current` made an empty harness.db, and a later `status` said "no
    study table" instead of "no store"."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["db", "current"])
    assert result.exit_code == 0
    assert result.output.startswith("sqlite:///harness.db: no store there (nothing created);")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", [["status", "s"], ["sync", "s"], ["screen", "s"]])
def test_an_empty_file_is_no_store(tmp_path, monkeypatch, command):
    empty = tmp_path / "harness.db"
    empty.touch()
    code, output = run(command, str(empty), tmp_path, monkeypatch)
    assert code == 1
    assert output.splitlines()[-1].startswith(
        f"Error: there is no store at {empty} (an empty file)"
    )
    assert empty.stat().st_size == 0
