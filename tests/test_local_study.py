"""The README's main job: scripts/local_study.sh runs the whole loop on the local platform
(launch, task pages, simulated crowd with live screening, sync, review, screen, characterize)."""

from __future__ import annotations

import json
import os
import socket
import subprocess

from tests.factories import PROJECT_ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_local_study_script_runs_the_whole_loop_and_writes_the_report(tmp_path):
    run = tmp_path / "run"
    env = os.environ | {
        "HARNESS_MTURK_PORT": str(_free_port()),
        "HARNESS_PAGES_PORT": str(_free_port()),
    }
    env.pop("HARNESS_DATABASE_URL", None)
    done = subprocess.run(
        ["bash", str(PROJECT_ROOT / "scripts" / "local_study.sh"), str(run)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "12 HITs on local" in done.stdout
    assert "156 assignments submitted by 30 simulated workers" in done.stdout
    assert "judgments: 4,901" in done.stdout
    report = json.loads((run / "report" / "report.json").read_text())
    assert report["reproducibility"]["overlap"]["n_shared"] == 353
    assert report["screened"]["workers_removed"]  # the crowd's backwards workers
    assert {"minilm", "minilm_frame", "char3gram"} <= set(report["systems"])
    assert (run / "report" / "report.html").stat().st_size > 100_000
