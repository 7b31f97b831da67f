"""`harness import ws353`: the original instrument, every vote, with the dataset's conventions."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.datasets import load_ws353
from harness.judgments import read_judgments


def test_import_of_all_16_raters_only_when_named_writes_5189_judgments(
    ws353_dir: Path, tmp_path: Path
):
    out = tmp_path / "ws353.csv"
    args = ["import", "ws353", str(ws353_dir), "--raters", "16", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "5,189 judgments over 353 items and 16 workers" in result.output
    table = read_judgments(out)
    assert len(table) == 5189
    assert table["item_id"].nunique() == 353
    assert table["worker_id"].nunique() == 16


def test_import_gives_the_studys_13_raters_and_its_alpha_by_default(
    ws353_dir: Path, tmp_path: Path
):
    # The WS353 study characterized raters 1-13 on all 353 pairs: alpha 0.59. That is
    # harness's WS353 everywhere (import, characterize --original ws353, a spec's dataset).
    out = tmp_path / "ws353-13.csv"
    args = ["import", "ws353", str(ws353_dir), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "4,589 judgments over 353 items and 13 workers" in result.output
    agreement = CliRunner().invoke(main, ["agreement", str(out), "--bootstrap", "0"])
    assert "Krippendorff's alpha (interval) of" in agreement.output
    assert agreement.output.splitlines()[0].endswith(": 0.590")


def test_set1_raters_are_the_same_people_as_set2_raters_1_to_13(ws353_dir: Path):
    judgments = load_ws353(ws353_dir).judgments
    per_worker = judgments.groupby("worker_id").size()
    assert (per_worker[[f"ws353-r{r:02d}" for r in range(1, 14)]] == 353).all()
    assert (per_worker[[f"ws353-r{r:02d}" for r in range(14, 17)]] == 200).all()


def test_money_cash_stays_two_items_and_means_match_the_published_rounding(ws353_dir: Path):
    ws = load_ws353(ws353_dir)
    money = ws.items[(ws.items.word1 == "money") & (ws.items.word2 == "cash")]
    assert list(money["row"]) == [32, 98]
    means = ws.judgments.groupby("item_id")["value"].mean()
    published = ws.items.set_index("item_id")["published_mean"]
    # The files round half up to 2 decimals (8.125 is printed 8.13), so recomputed means lie
    # within half a unit of the last digit of the printed ones.
    assert (means - published).abs().max() <= 0.005 + 1e-9


def test_votes_agree_with_an_independent_read_of_the_files(ws353_dir: Path):
    set1 = pd.read_csv(ws353_dir / "set1.csv")
    set2 = pd.read_csv(ws353_dir / "set2.csv")
    table = load_ws353(ws353_dir).judgments.set_index(["item_id", "worker_id"])["value"]
    assert table[("ws353-002", "ws353-r07")] == set1.loc[1, "7"] == 8.5
    assert table[("ws353-154", "ws353-r16")] == set2.loc[0, "16"]
    expected = set1.iloc[:, 3:].to_numpy().sum() + set2.iloc[:, 3:].to_numpy().sum()
    assert table.sum() == pytest.approx(expected, abs=1e-9)


def test_a_missing_directory_is_an_input_error_that_says_how_to_point_at_the_data(tmp_path: Path):
    result = CliRunner().invoke(main, ["import", "ws353", str(tmp_path / "nope"), "--out", "x.csv"])
    assert result.exit_code == 1
    assert "WS353 not found" in result.output and "HARNESS_WS353_DIR" in result.output
