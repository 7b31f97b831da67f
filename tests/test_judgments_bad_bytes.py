"""Judgment CSVs with bytes that are no text, or rows that do not fit the header: refused with
the file, line and column, where pandas alone gave no line (or read a NUL as a line end)."""

from __future__ import annotations

import pytest

from harness.errors import JudgmentsError
from harness.judgments import read_judgments

GOOD = b"item_id,worker_id,value\na,w1,3\nb,w1,4\nc,w2,5\n"


def refusal(tmp_path, data: bytes) -> list[str]:
    path = tmp_path / "j.csv"
    path.write_bytes(data)
    with pytest.raises(JudgmentsError) as caught:
        read_judgments(path)
    return [line.removeprefix(f"{path}") for line in str(caught.value).splitlines()]


def test_a_nul_byte_is_named_with_line_and_column(tmp_path):
    assert refusal(tmp_path, GOOD.replace(b"b,w1", b"b\x00,w1")) == [
        ":3: control character U+0000 (NUL) at column 2; a CSV file cannot hold it: remove it"
    ]


def test_bytes_that_are_not_utf8_are_named_with_line_and_column(tmp_path):
    assert refusal(tmp_path, GOOD.replace(b"c,w2", b"c\xff,w2")) == [
        ":4: byte 0xff at column 2 is not UTF-8; save the file as UTF-8"
    ]


def test_a_row_with_more_cells_than_the_header_is_named_by_line(tmp_path):
    assert refusal(tmp_path, GOOD.replace(b"b,w1,4", b"b,w1,4,5")) == [
        ':3: 4 cells where the header has 3; quote a cell that holds a comma ("a, b")'
    ]


def test_a_byte_order_mark_is_still_fine(tmp_path):
    path = tmp_path / "j.csv"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD)
    assert list(read_judgments(path)["item_id"]) == ["a", "b", "c"]
