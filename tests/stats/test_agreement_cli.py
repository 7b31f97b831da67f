"""`harness agreement`: alpha, interval and verdict of a judgments CSV, as text and JSON."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import krippendorff
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.datasets import load_ws353
from harness.judgments import write_judgments
from harness.stats import LEVELS, krippendorff_alpha

REQUIRED_KEYS = {
    "alpha",
    "level",
    "n_items",
    "n_workers",
    "n_judgments",
    "n_pairable_items",
    "ci_low",
    "ci_high",
    "q_below_min",
    "verdict",
}


@pytest.fixture(scope="module")
def ws353_csv(ws353_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ws353") / "ws353.csv"
    write_judgments(load_ws353(ws353_dir).judgments, out)
    return out


def run(*args: str):
    return CliRunner().invoke(main, ["agreement", *args])


@pytest.mark.parametrize("level", LEVELS)
def test_ws353_alpha_agrees_with_the_package_on_the_dense_matrix(ws353_dir: Path, level):
    judgments = load_ws353(ws353_dir).judgments
    matrix = judgments.pivot(index="worker_id", columns="item_id", values="value").to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = krippendorff.alpha(matrix, level_of_measurement=level)
    assert krippendorff_alpha(judgments, level) == pytest.approx(expected, abs=1e-9)


def test_ws353_text_summary_gives_alpha_interval_and_verdict(ws353_csv: Path):
    result = run(str(ws353_csv))
    assert result.exit_code == 0, result.output
    assert "Krippendorff's alpha (interval)" in result.output and ": 0.560" in result.output
    assert "95% interval [" in result.output
    assert "bootstrap: units, 1000 resamples, seed 0" in result.output
    assert "verdict: unreliable" in result.output
    assert "warning: the interval reaches below alpha_min = 0.667" in result.output
    assert "5,189 judgments (0 skipped) by 16 workers on 353 items" in result.output


def test_ws353_json_has_the_documented_keys(ws353_csv: Path):
    result = run(str(ws353_csv), "--json", "--bootstrap-method", "kalpha", "--seed", "3")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert REQUIRED_KEYS <= set(report)
    assert report["n_judgments"] == 5189 and report["n_workers"] == 16
    assert report["n_items"] == report["n_pairable_items"] == 353
    assert report["ci_low"] < report["alpha"] < report["ci_high"]
    assert report["bootstrap"]["method"] == "kalpha" and report["bootstrap"]["seed"] == 3
    assert report["verdict"] == "unreliable"
    # Whoever chooses kalpha gets the units interval beside it, and how much wider it is.
    units = report["units_interval"]
    assert units["ci_low"] < report["ci_low"] and report["ci_high"] < units["ci_high"]
    ratio = (units["ci_high"] - units["ci_low"]) / (report["ci_high"] - report["ci_low"])
    assert units["units_width_over_kalpha_width"] == pytest.approx(ratio)
    assert ratio > 2.5


def test_choosing_kalpha_prints_the_units_interval_beside_it(ws353_csv: Path):
    result = run(str(ws353_csv), "--bootstrap-method", "kalpha")
    assert result.exit_code == 0, result.output
    assert "(bootstrap: kalpha, 1000 resamples, seed 0, 13,575 pairs per resample)" in (
        result.output
    )
    assert (
        "units bootstrap (resampling items), for comparison: [0.520, 0.596], 3.1 times as "
        "wide" in result.output
    )
    assert "note: kalpha resamples pairs of values pooled over all items" in result.output
    assert "for comparison" not in run(str(ws353_csv)).output


def test_no_bootstrap_gives_alpha_without_interval(ws353_csv: Path):
    report = json.loads(run(str(ws353_csv), "--json", "--bootstrap", "0").output)
    assert report["ci_low"] is None and report["q_below_min"] is None
    assert report["alpha"] == pytest.approx(0.5597229943582644, abs=1e-12)


def test_wide_csv_gives_the_same_alpha_as_the_long_one(tmp_path: Path):
    wide = tmp_path / "wide.csv"
    wide.write_text("item,ann,bob,cat\nx,1,2,\ny,3,3,4\nz,5,,5\nw,,2,\n")
    long = tmp_path / "long.csv"
    long.write_text(
        "item_id,worker_id,value\nx,ann,1\nx,bob,2\ny,ann,3\ny,bob,3\ny,cat,4\nz,ann,5\nz,cat,5\n"
        "w,bob,2\n"
    )
    a = json.loads(run(str(wide), "--wide", "--json", "--bootstrap", "50").output)
    b = json.loads(run(str(long), "--json", "--bootstrap", "50").output)
    assert a["alpha"] == pytest.approx(b["alpha"])
    assert a["n_items"] == 4 and a["n_pairable_items"] == 3 and a["n_judgments"] == 8


def test_missing_columns_are_an_input_error(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_text("item_id,rater,value\na,w1,1\n")
    result = run(str(path))
    assert result.exit_code == 1
    assert "missing column(s) worker_id" in result.output


def test_non_numeric_values_for_a_numeric_level_are_an_input_error(tmp_path: Path):
    path = tmp_path / "text.csv"
    path.write_text("item_id,worker_id,value\na,w1,high\na,w2,3\n")
    result = run(str(path), "--level", "ordinal")
    assert result.exit_code == 1
    assert f"{path}:2: value: is not a number" in result.output


def test_text_labels_work_at_the_nominal_level(tmp_path: Path):
    path = tmp_path / "labels.csv"
    path.write_text("item_id,worker_id,value\na,w1,cat\na,w2,cat\nb,w1,dog\nb,w2,cat\n")
    result = run(str(path), "--level", "nominal", "--json", "--bootstrap", "10")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["level"] == "nominal"


def test_fewer_than_two_workers_is_an_input_error(tmp_path: Path):
    path = tmp_path / "one.csv"
    path.write_text("item_id,worker_id,value\na,w1,1\nb,w1,2\n")
    result = run(str(path))
    assert result.exit_code == 1
    assert "agreement needs at least two workers with a value; found 1" in result.output


def test_an_empty_file_is_an_input_error(tmp_path: Path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    for extra in ([], ["--wide"]):
        result = run(str(path), *extra)
        assert result.exit_code == 1
        assert "the file is empty" in result.output


def test_no_pairable_values_is_an_input_error(tmp_path: Path):
    path = tmp_path / "apart.csv"
    path.write_text("item_id,worker_id,value\na,w1,1\nb,w2,2\n")
    result = run(str(path))
    assert result.exit_code == 1
    assert "no item has two or more values" in result.output
