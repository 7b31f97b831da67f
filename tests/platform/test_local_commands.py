"""The one-command local run: `launch --start-local`, and `simulate-workers` doing the HITs."""

from __future__ import annotations

import os
import re
import signal
import socket

from tests.platform.factories import harness_cli, launch_args, small_spec


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_launch_starts_the_local_service_when_none_answers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = small_spec(tmp_path)
    url = f"http://127.0.0.1:{free_port()}"
    args = launch_args(spec, url, str(tmp_path / "h.db"), "--start-local")
    result = harness_cli(*args)
    started = re.search(r"started the local MTurk service at \S+ \(pid (\d+)", result.output)
    assert started, result.output
    try:
        assert result.exit_code == 0, result.output
        assert "4 HITs on local (4 posted now" in result.output
        assert (tmp_path / "mturk-local.sqlite").exists()
        again = harness_cli(*args)
        assert f"local MTurk service already running at {url}" in again.output
        assert "0 posted now, 0 found again, 4 posted before" in again.output
    finally:
        pid = int(started.group(1))
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)  # it is this process's child: reap it


def test_simulate_workers_does_every_hit_with_progress_and_sync_stores_it(tmp_path, mturk):
    spec = small_spec(tmp_path)
    db = str(tmp_path / "h.db")
    assert harness_cli(*launch_args(spec, mturk.url, db)).exit_code == 0
    worked = harness_cli(
        "simulate-workers", "small", "--db", db, "--size", "3", "--mix", "careful=1"
    )
    assert worked.exit_code == 0, worked.output
    assert "small: 8 assignments submitted by 3 simulated workers" in worked.output
    assert "assignments submitted" in worked.stderr  # the progress bar, out of stdout's way
    assert "assignments submitted" not in worked.stdout.replace("8 assignments submitted", "")
    synced = harness_cli("sync", "small", "--db", db)
    assert "8 stored now" in synced.output


def test_simulate_workers_names_the_archetypes_it_knows(tmp_path):
    result = harness_cli("simulate-workers", "small", "--mix", "lazy=1")
    assert result.exit_code == 2
    assert "'lazy=1': expected ARCHETYPE=SHARE (careful, sloppy, spammer" in result.output


def test_a_command_on_a_stopped_local_service_says_how_to_start_it_again(tmp_path, mturk):
    """Issue 39: after `harness demo` (which stops its services) `expire` failed with MTurk's
    connection error and no hint; every command that asks the platform now says what to do."""
    spec = small_spec(tmp_path)
    db = str(tmp_path / "h.db")
    assert harness_cli(*launch_args(spec, mturk.url, db)).exit_code == 0
    mturk.stop()
    port = mturk.url.rsplit(":", 1)[1]
    for command in (["expire"], ["sync"], ["review"], ["pause"]):
        done = harness_cli(*command, "small", "--db", db)
        assert done.exit_code == 1, command
        assert (
            f"Error: the local MTurk service at {mturk.url} does not answer: start it again "
            f"with `harness mturk-local --port {port} --db STATE`" in done.output
        ), command
