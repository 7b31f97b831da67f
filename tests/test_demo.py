"""The README's main job: `harness demo` runs the whole loop on each local platform (launch, the
task pages, a simulated crowd with live screening, sync, review, screen, characterize), with
exactly 13 raters per WS353 item, nothing lost, and stops what it started."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest
import requests
from sqlmodel import Session, select

from harness.demo import MARKER, _empty
from harness.errors import InputError
from harness.store.database import open_store
from harness.store.models import Assignment, Event, EventKind
from tests.platform.factories import harness_cli

PEOPLE = {"local": 30, "prolific-local": 156, "link": 30}


def _children() -> set[int]:
    """This process's living children (from /proc)."""
    me, found = str(os.getpid()), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


_RUNS: dict[str, tuple[Path, str]] = {}
"""This test process's default demo run per platform: its folder and output (a demo takes
tens of seconds)."""


def _demo(platform: str, folder: Path) -> tuple[Path, str]:
    """The default demo (seed 1) on ``platform``, run into ``folder`` the first time asked."""
    if platform not in _RUNS:
        run = folder / f"run-{platform}"
        done = harness_cli("demo", "--platform", platform, "--out", str(run))
        assert done.exit_code == 0, done.output[-3000:]
        _RUNS[platform] = (run, done.output)
    return _RUNS[platform]


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["local", "prolific-local", "link"])
def test_the_demo_runs_the_whole_loop_on_each_local_platform(tmp_path_factory, platform):
    before = _children()
    run, out = _demo(platform, tmp_path_factory.getbasetemp())
    assert f"12 HITs on {platform}" in out
    assert f"156 assignments submitted by {PEOPLE[platform]} simulated workers" in out
    assert "raters per item (target 13): min 13, median 13, max 13; 365 of 365" in out
    assert "judgments: 4,901" in out
    if platform == "link":  # the link lists nothing of its own; its HITs never change
        assert "12 HITs, 0 submitted assignments listed by the platform, 156 in the store" in out
        assert "running, every place taken (`harness expire ws353-reproduction` ends it)" in out
        assert "HITs (12): full 12" in out
    assert "workers flagged under the spec's policy" in out
    assert re.search(r"their work: \d+ of 156 assignments \(\d+%\), counted in the alpha", out)
    assert f"Report: {run / 'report' / 'report.html'}" in out
    status = f"harness status ws353-reproduction --db {run}/harness.db"
    assert f"Next, on the demo's store:\n  {status}" in out
    assert "characterize: " not in out and "  reading the new instrument" in out  # progress
    assert _children() == before  # every service it started is stopped
    report = json.loads((run / "report" / "report.json").read_text())
    assert report["reproducibility"]["overlap"]["n_shared"] == 353
    assert report["screened"]["workers_removed"]  # the crowd's backwards workers
    assert {"minilm", "minilm_frame", "char3gram"} <= set(report["systems"])
    db = sqlite3.connect(run / "harness.db")
    kinds = dict(db.execute("SELECT kind, COUNT(*) FROM event GROUP BY kind").fetchall())
    db.close()
    assert kinds["worker.blocked"] > 0  # live screening blocked workers as they came
    assert kinds["assignment.submitted"] == 156 == kinds["review.approved"]  # nothing lost
    assert _out_of_order(run / "harness.db") == []
    if platform == "link":  # once more with the same seed: in the same test, so one run is new
        _same_seed_same_run(run, tmp_path_factory)


def _same_seed_same_run(first: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Issue 39: two runs of one seed gave alpha 0.566 and 0.592, 23 and 18 flags: live
    screening ran a moment after each submission, so how much a careless worker did before a
    block depended on the machine's speed. The demo's task server screens in the request."""
    again = tmp_path_factory.mktemp("again") / "run"
    done = harness_cli("demo", "--platform", "link", "--seed", "1", "--out", str(again))
    assert done.exit_code == 0, done.output[-3000:]
    assert _decisions(first)[1] and _decisions(first) == _decisions(again)


def _decisions(run: Path) -> tuple[float, list[tuple[str, dict]]]:
    """The run's alpha (all judgments) and its screening decisions, in order."""
    report = json.loads((run / "report" / "report.json").read_text())
    db = sqlite3.connect(run / "harness.db")
    decisions = db.execute(
        "SELECT subject, payload FROM event WHERE kind = 'screening.decision' ORDER BY id"
    ).fetchall()
    db.close()
    return report["new"]["repeatability"]["alpha"], [
        (worker, {**payload, "assignments": len(payload.get("assignments", []))})
        for worker, payload in ((w, json.loads(p)) for w, p in decisions)
    ]  # assignment ids are drawn anew on each run; how many a decision covers is not


@pytest.mark.slow
def test_ctrl_c_stops_the_demo_and_everything_it_started_with_exit_130(tmp_path):
    """Issue 39: Ctrl-C cleaned up but ended on "Error: ... failed (see above)", exit 1."""
    import signal
    import subprocess
    import sys
    import time

    run = tmp_path / "run"
    # A shell ignores SIGINT in a command it runs in the background, and an ignored signal
    # stays ignored in a child, which would run the whole demo: the demo gets Ctrl-C as a
    # terminal gives it (a handled signal is reset to the default in a new program).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        demo = subprocess.Popen(
            [sys.executable, "-m", "harness", "demo", "--out", str(run)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    seen = ""
    deadline = time.monotonic() + 300
    while "== crowd" not in seen and time.monotonic() < deadline:
        line = demo.stdout.readline()
        assert line, seen  # it ended before its crowd came
        seen += line
    demo.send_signal(signal.SIGINT)
    out, err = demo.communicate(timeout=120)
    assert demo.returncode == 130, seen + out + err
    stopped = "demo: stopped (Ctrl-C); the services it started are stopped, and what it stored"
    assert f"{stopped} is in {run / 'harness.db'}" in err
    assert "Error" not in err and "Traceback" not in err
    assert not (run / "report").exists()
    for url in re.findall(r"http://127\.0\.0\.1:\d+", seen.split("== launch")[0]):
        with pytest.raises(requests.ConnectionError):  # every service it started is stopped
            requests.get(url, timeout=5)


def _out_of_order(db: Path) -> list[str]:
    """The assignments whose times are not accepted <= submitted <= approved (issue 39: on the
    MTurk path every acceptance was recorded when harness stored the answers, after they were
    submitted)."""
    engine = open_store(f"sqlite:///{db}")
    try:
        with Session(engine) as session:
            approved = {
                e.subject: e.at
                for e in session.exec(select(Event).where(Event.kind == EventKind.APPROVED))
            }
            return [
                f"{a.platform_assignment_id}: {a.accepted_at} {a.submitted_at}"
                for a in session.exec(select(Assignment))
                if not (a.accepted_at <= a.submitted_at <= approved[a.platform_assignment_id])
            ]
    finally:
        engine.dispose()


def test_the_demo_refuses_to_empty_a_folder_that_is_not_a_demos(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = harness_cli("demo", "--out", str(tmp_path))
    assert done.exit_code == 1
    assert (
        f"demo: {tmp_path} holds files a demo did not make; give a new or empty folder (--out)"
        in done.output
    )
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_store_in_a_folder_does_not_make_it_a_demos(tmp_path):
    """Issue 39: every command makes a harness.db in the current folder; that alone must not
    let the demo empty the folder."""
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "f").write_text("a")
    (tmp_path / "harness.db").touch()
    done = harness_cli("demo", "--out", str(tmp_path))
    assert done.exit_code == 1
    assert "holds files a demo did not make" in done.output
    assert (tmp_path / "t" / "f").read_text() == "a"


def test_a_demos_folder_is_emptied_of_what_a_demo_made_and_nothing_else(tmp_path):
    run = tmp_path / "run"
    _empty(run)  # a new folder: made and marked
    assert [p.name for p in run.iterdir()] == [MARKER]
    (run / "report").mkdir()
    (run / "report" / "report.html").write_text("old")
    (run / "harness.db").write_text("old")
    (run / "serve.log").write_text("old")
    _empty(run)
    assert [p.name for p in run.iterdir()] == [MARKER]
    (run / "notes.txt").write_text("mine")
    (run / "harness.db").write_text("old")
    with pytest.raises(InputError, match="holds notes.txt, which a demo did not make"):
        _empty(run)
    assert (run / "notes.txt").read_text() == "mine"
    assert (run / "harness.db").read_text() == "old"


@pytest.mark.slow
def test_the_resolution_demo_ends_in_a_finite_resolution_for_the_calibrated_crowd(tmp_path):
    """Issue 15: through the pages, the crowd (70% careful, calibrated on WS353) orders far
    pairs like WS353 and near ones not, so the resolution is finite and near the published
    1.8 (the shipped design spreads pairs of pairs uniformly; 30% of the crowd is careless)."""
    run = tmp_path / "run"
    done = harness_cli("demo", "resolution", "--out", str(run))
    assert done.exit_code == 0, done.output[-3000:]
    assert "ws353-resolution: 130 assignments submitted by 30 simulated workers" in done.output
    assert "200 of 200 items at target" in done.output
    report = json.loads((run / "report" / "report.json").read_text())["resolution"]
    assert report["n_pairs_of_pairs"] == 200
    assert 1.0 <= report["threshold_95"] <= 3.0 and report["stable_above"]
    # The headline is the resolution with its interval, said once; no reproduction verdict of
    # WS353 against itself.
    low, high = report["threshold_ci"]
    assert f"resolution: {report['threshold_95']:.2f} [{low:.2f}, {high:.2f}] (" in done.output
    assert "reproduces" not in done.output and done.output.count("tell minilm from") == 1
    bands = {b["low"]: b for b in report["bands"]}
    far = [b for low, b in bands.items() if low >= 4.0]
    assert all(b["agreement"] >= 0.9 for b in far)  # far pairs are ordered like WS353
    assert bands[0.0]["agreement"] < 0.7 and bands[0.0]["equal"] > 0  # near ones are not
    curve = report["psychometric"]
    assert report["threshold_95"] < curve["d_target"] < 6.0
    assert curve["ci"][0] < curve["d_target"] < curve["ci"][1]
