"""The long judgment table: one format, read strictly, written back unchanged."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.errors import JudgmentsError
from harness.judgments import read_judgments, to_crowdkit, wide_to_long, write_judgments


def _csv(tmp_path, text):
    path = tmp_path / "j.csv"
    path.write_text(text)
    return path


def test_a_full_table_round_trips_with_types(tmp_path):
    path = _csv(
        tmp_path,
        "item_id,worker_id,value,skipped,position,shown_at,seconds,role,word1\n"
        "a,w1,7.5,false,0,2026-11-01T10:00:00Z,3.5,item,cat\n"
        "b,w1,,true,1,2026-11-01T10:00:04Z,1.0,identical,dog\n",
    )
    table = read_judgments(path)
    assert table["value"].tolist()[0] == 7.5 and pd.isna(table["value"][1])
    assert table["skipped"].tolist() == [False, True]
    assert table["position"].tolist() == [0, 1]
    assert str(table["shown_at"].dt.tz) == "UTC"
    write_judgments(table, tmp_path / "again.csv")
    assert read_judgments(tmp_path / "again.csv").equals(table)


def test_missing_columns_are_named(tmp_path):
    with pytest.raises(
        JudgmentsError,
        match=r"missing column\(s\) value; a judgments table needs "
        r"item_id, worker_id, value",
    ):
        read_judgments(_csv(tmp_path, "item_id,worker_id\na,w1\n"))


def test_bad_values_are_reported_with_their_lines(tmp_path):
    path = _csv(tmp_path, "item_id,worker_id,value\na,w1,7\nb,w1,seven\n,w2,3\nc,w2,\n")
    with pytest.raises(JudgmentsError) as caught:
        read_judgments(path)
    assert str(caught.value).splitlines() == [
        f"{path}:4: item_id: is empty",
        f"{path}:5: value: is empty; give a value, or mark the row skipped=true if the worker "
        "skipped the item",
        f"{path}:3: value: is not a number",
    ]


def test_an_empty_file_and_a_header_only_file_are_errors(tmp_path):
    with pytest.raises(JudgmentsError, match="the file is empty"):
        read_judgments(_csv(tmp_path, ""))
    with pytest.raises(JudgmentsError, match="no judgments"):
        read_judgments(_csv(tmp_path, "item_id,worker_id,value\n"))


def test_nominal_labels_are_kept_as_text_when_asked(tmp_path):
    table = read_judgments(_csv(tmp_path, "item_id,worker_id,value\na,w1,yes\n"), numeric=False)
    assert table["value"].tolist() == ["yes"]


def test_a_wide_table_becomes_long_without_empty_cells():
    wide = pd.DataFrame({"item": ["a", "b"], "w1": [1, None], "w2": [3, 4]})
    long = wide_to_long(wide)
    assert long.to_dict(orient="records") == [
        {"item_id": "a", "worker_id": "w1", "value": 1.0},
        {"item_id": "a", "worker_id": "w2", "value": 3},
        {"item_id": "b", "worker_id": "w2", "value": 4},
    ]


def test_crowdkit_columns_leave_skips_out():
    table = pd.DataFrame(
        {
            "item_id": ["a", "b"],
            "worker_id": ["w", "w"],
            "value": [1.0, None],
            "skipped": [False, True],
        }
    )
    assert to_crowdkit(table).to_dict(orient="records") == [
        {"task": "a", "worker": "w", "label": 1.0}
    ]
