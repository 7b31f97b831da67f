"""Property-based fuzzing of judgment CSVs (issue 21): a mutated copy of a valid file is either
read into a valid table or refused with a `JudgmentsError` whose every line names the file, and
the commands that read CSVs (`agreement`, `screen --judgments`) exit 0 or 1 with a message,
never a traceback; on a bounded budget (a few seconds)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.errors import JudgmentsError
from harness.judgments import read_judgments
from tests.factories import TASK_SPECS

SPEC = TASK_SPECS / "sentence_similarity.yaml"
ITEMS = pd.read_csv(TASK_SPECS / "items" / "sentence_pairs.csv", dtype=str)["item_id"][:6]
BASE = "item_id,worker_id,value,skipped,seconds\n" + "".join(
    f"{item},w{w},{(i * 3 + w) % 5 + 1},false,{2 + w}\n"
    for i, item in enumerate(ITEMS)
    for w in range(1, 5)
)
PAYLOADS = [
    b"\x00",
    b"\xff",
    b"\xc3",
    b'"',
    b",",
    b"\r",
    b"\n",
    b"\xef\xbb\xbf",
    b"x" * 200_000,
    ",".join(["c"] * 3000).encode(),
    "\u0665".encode(),
    "\uff15".encode(),
    b"1_0",
    b"1e400",
    b"1e-400",
    b"nan",
    b"-inf",
    b"true",
    b"item_id",
    b"value",
    b"\t",
    b"\\",
    b"'",
]


@st.composite
def mutated_csvs(draw: st.DrawFn) -> bytes:
    """The valid base file with one to three edits: a payload inserted or put in place of a
    cell, a span deleted, or a line repeated."""
    data = BASE.encode()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["insert", "cell", "delete", "repeat"]))
        at = draw(st.integers(0, len(data)))
        payload = draw(st.sampled_from(PAYLOADS) | st.binary(max_size=6))
        if kind == "insert":
            data = data[:at] + payload + data[at:]
        elif kind == "cell":
            start = data.rfind(b",", 0, at) + 1
            ends = [i for i in (data.find(b",", at), data.find(b"\n", at)) if i >= 0]
            end = min(ends) if ends else len(data)
            data = data[:start] + payload + data[end:]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 60)) :]
        else:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start : end + 1 if end >= 0 else len(data)]
            data = data[:start] + line + data[start:]
    return data


BUDGET = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@BUDGET
@given(data=mutated_csvs(), numeric=st.booleans())
def test_a_mutated_csv_is_read_valid_or_refused_naming_the_file(data, numeric):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "j.csv"
        path.write_bytes(data)
        try:
            table = read_judgments(path, numeric=numeric)
        except JudgmentsError as exc:
            for line in str(exc).splitlines():
                assert line.startswith(str(path)), line
            return
    assert len(table) and (table["item_id"] != "").all() and (table["worker_id"] != "").all()
    if numeric:
        given_values = table["value"][~table["skipped"]].to_numpy()
        assert np.isfinite(given_values).all()


@settings(BUDGET, max_examples=25)  # each example runs two commands
@given(data=mutated_csvs())
def test_commands_reading_a_mutated_csv_exit_0_or_1_never_a_traceback(data):
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "j.csv"
        path.write_bytes(data)
        for args in (
            ["agreement", str(path), "--bootstrap", "0"],
            ["screen", "--judgments", str(path), "--spec", str(SPEC)],
        ):
            result = runner.invoke(main, args)
            assert result.exit_code in (0, 1), (args, result.output, result.exception)
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                args,
                repr(result.exception),
            )
            if result.exit_code == 1:
                assert result.output.strip(), args
