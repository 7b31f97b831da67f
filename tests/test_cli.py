"""The command line's contract: version, help for every command, and exit codes."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from harness import __version__
from harness.cli import COMMANDS, main


def _all_commands() -> list[list[str]]:
    paths = []
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        paths.append([name])
        if isinstance(command, click.Group):
            paths += [[name, sub] for sub in command.commands]
    return paths


def test_version_prints_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"harness, version {__version__}"


@pytest.mark.parametrize("path", _all_commands(), ids=" ".join)
def test_every_command_has_help(path):
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    command = main
    for name in path:
        command = command.get_command(click.Context(command), name)
    assert command.help and len(command.help.strip()) > 20


def test_bad_usage_exits_2_and_bad_input_exits_1(tmp_path):
    assert CliRunner().invoke(main, ["no-such-command"]).exit_code == 2
    assert CliRunner().invoke(main, ["validate"]).exit_code == 2
    missing = CliRunner().invoke(main, ["validate", str(tmp_path / "none.yaml")])
    assert missing.exit_code == 1
    assert f"{tmp_path / 'none.yaml'}: cannot read the spec" in missing.output


@pytest.mark.parametrize("command", [["sync", "s"], ["status", "s"], ["review", "s"]])
def test_a_store_never_upgraded_gets_told_to_run_db_upgrade(empty_database_url, command):
    if empty_database_url.startswith("sqlite:///"):  # a SQLite database without harness's
        import sqlite3  # tables (a missing file, or an empty one, is no store at all)

        made = sqlite3.connect(empty_database_url.removeprefix("sqlite:///"))
        made.execute("CREATE TABLE notes (text TEXT)")
        made.close()
    result = CliRunner().invoke(main, [*command, "--db", empty_database_url])
    assert result.exit_code == 1
    assert "the store has no study table" in result.output
    assert "harness db upgrade" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["sync", "s"], ["status", "s"], ["review", "s"]])
def test_a_store_made_by_an_older_harness_gets_told_to_run_db_upgrade(empty_database_url, command):
    from harness.store.migrations import upgrade

    upgrade(empty_database_url, "d5f5f90c6a44")  # before the study's currency column
    result = CliRunner().invoke(main, [*command, "--db", empty_database_url])
    assert result.exit_code == 1
    assert "was made by an older harness" in result.output, result.output
    assert "harness db upgrade" in result.output
    assert "cannot connect" not in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_the_dashboard_starts_without_a_development_server_warning(tmp_path):
    """Issue 39: `harness dashboard` printed werkzeug's "development server" warning, which is
    about serving the public; the dashboard serves one researcher, on loopback by default."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    import requests

    db = tmp_path / "h.db"
    assert CliRunner().invoke(main, ["db", "upgrade", "--db", str(db)]).exit_code == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "harness", "dashboard", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"HARNESS_DASHBOARD_PASSWORD": "secret"},
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if requests.get(f"http://127.0.0.1:{port}/dashboard/", timeout=5).ok:
                    break
            except requests.ConnectionError:
                assert server.poll() is None, server.communicate()
                time.sleep(0.2)
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    assert f"Dashboard on http://127.0.0.1:{port}/dashboard/" in out
    assert "development server" not in out + err
    assert server.returncode == 0, err


def test_the_dashboard_never_creates_the_store_it_reads(tmp_path):
    missing = tmp_path / "typo.db"
    result = CliRunner(env={"HARNESS_DASHBOARD_PASSWORD": "secret"}).invoke(
        main, ["dashboard", "--db", str(missing)]
    )
    assert result.exit_code == 1
    assert f"Error: there is no store at {missing} (nothing was created there)" in result.output
    assert not list(tmp_path.iterdir())
