"""scripts/simulate_ws353_studies.py writes the demo inputs docs/characterize.md runs on."""

from __future__ import annotations

import runpy
import sys

from harness.judgments import read_judgments
from tests.factories import PROJECT_ROOT, WS353_DIR


def test_the_demo_script_writes_a_reproduction_a_resolution_study_and_a_screening(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(
        sys,
        "argv",
        ["simulate_ws353_studies.py", "--out", str(tmp_path), "--ws353", str(WS353_DIR)],
    )
    runpy.run_path(str(PROJECT_ROOT / "scripts" / "simulate_ws353_studies.py"), run_name="__main__")
    reproduction = read_judgments(tmp_path / "reproduction.csv")
    resolution = read_judgments(tmp_path / "resolution.csv")
    assert reproduction["item_id"].nunique() == 353
    assert reproduction.groupby("item_id").size().eq(13).all()
    assert resolution["item_id"].nunique() == 200
    assert {"p_item_id", "q_item_id"} <= set(resolution.columns)
    flagged = (tmp_path / "flagged.txt").read_text().split()
    assert flagged and set(flagged) <= set(reproduction["worker_id"])
    assert "Wrote" in capsys.readouterr().out
