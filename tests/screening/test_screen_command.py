"""`harness screen`: the per-worker table as text or JSON, and clear errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
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
    text = _run(*args, "--only", "H8", "--details")
    assert text.exit_code == 0 and "consensus_correlation.score" in text.output
    assert "2 of 10 workers flagged" in text.output


def test_the_text_fits_100_columns_with_a_legend_and_marks_what_the_policy_acts_on(tmp_path):
    text = _run("--judgments", str(_judgments(tmp_path)), "--spec", str(SPEC)).output
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].split()[:4] == ["worker", "H1", "H2", "H3"] and lines[0].endswith("flagged")
    flagged = [line for line in lines[1:11] if line.endswith("  yes")]
    assert len(flagged) == 2 and all("!" in line for line in flagged)  # H8 blocks them
    assert "H8 consensus_correlation" in text and "rad radical" in text
    assert "! flags and the spec's policy acts on it" in text
    assert text.rstrip().endswith("2 of 10 workers flagged under the spec's policy.")


def test_unknown_heuristic_and_bad_csv_are_input_errors(tmp_path):
    path = _judgments(tmp_path)
    result = _run("--judgments", str(path), "--spec", str(SPEC), "--only", "H3,H42")
    assert result.exit_code == 1 and "--only: unknown heuristic(s) H42" in result.output
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"item_id": ["x"], "value": [1]}).to_csv(bad, index=False)
    result = _run("--judgments", str(bad), "--spec", str(SPEC))
    assert result.exit_code == 1 and "missing column(s) worker_id" in result.output


def test_values_outside_the_specs_scale_are_refused_with_file_line_and_value(tmp_path):
    path = _judgments(tmp_path)
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    value, skipped = header.index("value"), header.index("skipped")
    for number, wrong in ((3, "11"), (6, "2.125"), (9, "-1")):  # 0 to 10, 2 decimals
        cells = lines[number - 1].split(",")
        cells[value], cells[skipped] = wrong, "false"
        lines[number - 1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    result = _run("--judgments", str(path), "--spec", str(SPEC))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert [line for line in result.output.splitlines() if str(path) in line] == [
        f"Error: {path}:3: value: 11 is not on the spec's scale (0 to 10, up to 2 decimals)",
        f"{path}:6: value: 2.125 is not on the spec's scale (0 to 10, up to 2 decimals)",
        f"{path}:9: value: -1 is not on the spec's scale (0 to 10, up to 2 decimals)",
    ]


def _stored_study(database_url: str, tmp_path: Path) -> Path:
    """The CSV's study stored under the name ws353-reproduction; returns the CSV."""
    from harness.screening.live import forget_states
    from harness.simulate.stored import store_assignments
    from harness.store import create_study, make_engine, session_scope

    path = _judgments(tmp_path)
    table = pd.read_csv(path)
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, load_spec(SPEC))
        for _ in store_assignments(session, study, table):
            pass
    engine.dispose()
    forget_states()
    return path


def test_a_stored_study_screens_as_its_csv_under_the_frozen_spec(database_url, tmp_path):
    path = _stored_study(database_url, tmp_path)
    stored = _run("ws353-reproduction", "--db", database_url, "--json")
    assert stored.exit_code == 0, stored.output
    from_csv = json.loads(_run("--judgments", str(path), "--spec", str(SPEC), "--json").output)
    from_store = json.loads(stored.output)
    for row in from_store:  # H7 names the worst assignment by its id on the platform
        worst = row["low_correlation"]["worst"]
        row["low_correlation"]["worst"] = worst.partition("-")[2] if worst else worst
    assert from_store == from_csv
    assert sum(r["flagged"] for r in from_csv) == 2
    impact = _run("ws353-reproduction", "--db", database_url, "--impact", "--json")
    csv_impact = _run("--judgments", str(path), "--spec", str(SPEC), "--impact", "--json")
    assert impact.exit_code == 0 and json.loads(impact.output) == json.loads(csv_impact.output)


def test_an_unknown_study_names_the_studies_in_the_store(database_url, tmp_path):
    _stored_study(database_url, tmp_path)
    result = _run("nope", "--db", database_url)
    assert result.exit_code == 1
    assert "Error: no study named 'nope' in the store (studies: ws353-reproduction)" in (
        result.output
    )


def test_a_study_or_a_csv_with_its_spec_must_be_given(tmp_path):
    path = _judgments(tmp_path)
    assert _run().exit_code == 2
    assert _run("--judgments", str(path)).exit_code == 2
    assert _run("name", "--judgments", str(path), "--spec", str(SPEC)).exit_code == 2


def test_impact_shows_alpha_for_every_subset_next_to_no_screening(tmp_path):
    import krippendorff

    path = _judgments(tmp_path)
    system = tmp_path / "system.csv"
    truths = load_ws353(WS353_DIR).judgments.groupby("item_id")["value"].mean()
    truths.rename("score").reset_index().to_csv(system, index=False)
    args = ["--judgments", str(path), "--spec", str(SPEC), "--impact", "--json"]
    records = json.loads(_run(*args, "--only", "H3,H8", "--system", f"truth={system}").output)
    assert [r["label"] for r in records] == ["none", "H3", "H8", "H3+H8"]
    none = records[0]
    table = pd.read_csv(path)
    wide = table.pivot_table(index="worker_id", columns="item_id", values="value")
    expected = krippendorff.alpha(wide.to_numpy(), level_of_measurement="interval")
    assert none["alpha"] == pytest.approx(expected, abs=1e-9) and none["alpha_change"] == 0
    h8 = records[2]
    assert h8["workers_removed"] == 2 and h8["workers_kept"] == 8
    assert h8["alpha"] > none["alpha"] and h8["rho:truth"] > none["rho:truth"]
    assert h8["rho_change:truth"] == pytest.approx(h8["rho:truth"] - none["rho:truth"])
    text = _run(*args[:-1], "--only", "H3,H8", "--system", f"truth={system}")
    assert text.exit_code == 0 and "report both figures" in text.output
    lines = text.output.splitlines()  # issue 39: it was about 190 characters wide
    assert max(map(len, lines)) <= 100
    assert lines[0].split() == [
        "heuristics",
        "policy",
        "removed",
        "judgments",
        "items",
        "alpha",
        "rho",
        "truth",
    ]
    assert f"{h8['alpha']:.3f} {h8['alpha_change']:+.3f}" in lines[3]


def test_a_store_without_tables_says_to_upgrade_it(tmp_path):
    import sqlite3

    other = sqlite3.connect(tmp_path / "empty.db")  # a SQLite file, but no harness tables
    other.execute("CREATE TABLE notes (text TEXT)")
    other.close()
    result = _run("some-study", "--db", str(tmp_path / "empty.db"))
    assert result.exit_code == 1
    assert "the store has no study table" in result.output  # the CLI's one store-error message
    assert "`harness db upgrade` (with the same --db)" in result.output
