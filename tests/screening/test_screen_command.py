"""`harness screen`: the per-worker table as text or JSON, and clear errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from harness.cli import main
from harness.datasets import load_ws353
from harness.judgments import write_judgments
from harness.simulate import Crowd, simulate_judgments
from harness.spec import load_spec
from tests.factories import TASK_SPECS, WS353_DIR

SPEC = TASK_SPECS / "ws353_reproduction.yaml"


def _judgments(tmp_path: Path) -> Path:
    truths = load_ws353(WS353_DIR).judgments.groupby("item_id")["value"].mean().iloc[:60]
    crowd = Crowd({"careful": 0.8, "backwards": 0.2}, size=10, seed=2)
    table = simulate_judgments(truths, load_spec(SPEC).scale, crowd, 5, 20, seed=2)
    path = tmp_path / "j.csv"
    write_judgments(table.drop(columns="true_archetype"), path)
    return path


def _run(*args: str):
    return CliRunner().invoke(main, ["screen", *args])


def test_json_has_every_worker_with_each_heuristic_and_flagged(tmp_path):
    result = _run("--judgments", str(_judgments(tmp_path)), "--spec", str(SPEC), "--json")
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert len(records) == 10
    assert set(records[0]["consensus_correlation"]) >= {"score", "evidence", "flag"}
    # The spec blocks on consensus_correlation: the two backwards workers are flagged.
    assert sum(r["flagged"] for r in records) == 2
    assert all(r["consensus_correlation"]["label"] == "backwards" for r in records if r["flagged"])


def test_only_restricts_the_heuristics_by_code_or_key(tmp_path):
    args = ["--judgments", str(_judgments(tmp_path)), "--spec", str(SPEC)]
    records = json.loads(_run(*args, "--json", "--only", "H3,quick").output)
    assert set(records[0]) == {"worker_id", "low_variance", "quick", "flagged"}
    text = _run(*args, "--only", "H8")
    assert text.exit_code == 0 and "consensus_correlation.score" in text.output
    assert "2 of 10 workers flagged" in text.output


def test_unknown_heuristic_and_bad_csv_are_input_errors(tmp_path):
    path = _judgments(tmp_path)
    result = _run("--judgments", str(path), "--spec", str(SPEC), "--only", "H3,H42")
    assert result.exit_code == 1 and "--only: unknown heuristic(s) H42" in result.output
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"item_id": ["x"], "value": [1]}).to_csv(bad, index=False)
    result = _run("--judgments", str(bad), "--spec", str(SPEC))
    assert result.exit_code == 1 and "missing column(s) worker_id" in result.output
