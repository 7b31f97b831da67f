"""The long judgment table: one format, read strictly, written back unchanged."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import JudgmentsError
from harness.judgments import (
    normalize_judgments,
    read_judgments,
    read_text_csv,
    wide_to_long,
    write_judgments,
)
from harness.showings import mark_repeats


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


def test_a_header_cell_holding_a_line_break_is_named_on_the_messages_one_line(tmp_path):
    path = _csv(tmp_path, '"item_id,worker_id,value\n"a,w1,2\n')
    with pytest.raises(JudgmentsError) as refused:
        read_judgments(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: missing column(s) item_id, worker_id, value")
    assert "\n" not in message and "(found: 'item_id,worker_id,value\\na'" in message


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


def test_a_column_named_twice_in_the_header_is_refused_naming_it(tmp_path):
    path = _csv(tmp_path, "item_id,worker_id,value, value,worker_id\na,w1,1,2,w2\n")
    with pytest.raises(JudgmentsError) as caught:
        read_judgments(path)
    assert str(caught.value).splitlines() == [
        f"{path}:1: column 'worker_id' appears 2 times in the header (columns 2, 5); every "
        "column needs its own name",
        f"{path}:1: column 'value' appears 2 times in the header (columns 3, 4); every column "
        "needs its own name",
    ]


def test_a_position_that_is_not_a_whole_number_is_reported_not_a_crash(tmp_path):
    path = _csv(tmp_path, "item_id,worker_id,value,position\na,w1,1,2.5\nb,w1,2,-1\nc,w1,3,\n")
    with pytest.raises(JudgmentsError) as caught:
        read_judgments(path)
    assert str(caught.value).splitlines() == [
        f"{path}:2: position: expected a whole number >= 0",
        f"{path}:3: position: expected a whole number >= 0",
    ]


# --- the typed (fast) read against the text read ------------------------------------------------

_CELLS = {
    "item_id": ["a", "b", " c", "d ", "", "i\u00a0", "ü"],
    "worker_id": ["w1", "w2", "w3 ", "\tw4", "w1"],
    "value": ["7", "7.5", " 3", "4 ", "", "nan", "inf", "1e-400", "seven", "1_0", "+2", ".5"],
    "skipped": ["false", "true", "TRUE", " no", "", "maybe", "1", "0"],
    "position": ["0", "3", "", "2.5", "-1", "x", " 4"],
    "seconds": ["1.5", "", "-2", "0", "abc"],
    "role": ["item", "", "gold", "identical", "wrong"],
    "word1": ["cat", "ice cream", " spaced ", ""],
}


@st.composite
def judgment_csvs(draw: st.DrawFn) -> bytes:
    """A judgments CSV as bytes: random optional columns, cells from `_CELLS` (valid and
    invalid, with and without spaces), quoted or not, LF or CRLF, with or without a BOM."""
    optional = draw(st.lists(st.sampled_from(list(_CELLS)[3:]), unique=True))
    columns = ["item_id", "worker_id", "value", *optional]
    clean = draw(st.booleans())  # only cells a valid file has: the fast path's own ground
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        cells = []
        for column in columns:
            choices = _CELLS[column][:2] if clean else _CELLS[column]
            cell = draw(st.sampled_from(choices))
            if clean and column == "value":
                cell = draw(st.sampled_from(["7", "2.25", "0"]))
            if draw(st.booleans()) and not clean:
                cell = '"' + cell + '"'
            cells.append(cell)
        rows.append(",".join(cells))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join([",".join(columns), *rows]) + draw(st.sampled_from(["", newline]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(judgment_csvs(), st.booleans())
def test_the_typed_read_gives_what_the_text_read_gives(data, numeric):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "j.csv"
        path.write_bytes(data)
        try:
            expected = mark_repeats(
                normalize_judgments(
                    read_text_csv(path, expected_header="x"), source=str(path), numeric=numeric
                )
            )
        except JudgmentsError as exc:
            with pytest.raises(JudgmentsError) as caught:
                read_judgments(path, numeric=numeric)
            assert str(caught.value) == str(exc)
            return
        got = read_judgments(path, numeric=numeric)
        pd.testing.assert_frame_equal(got, expected)
