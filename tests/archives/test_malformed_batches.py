"""Malformed and fuzzed batch-results files: every problem located (file, line, column), and
no study stored, not even part of one; with --skip-bad-rows the good rows are stored and the
bad ones written aside, nothing lost."""

from __future__ import annotations

import csv
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.archives.batch_layout import parse_time
from tests.archives.batch_download import format_time
from tests.archives.factories import MAPPING, START, mapped_batch, study_names, write_batch
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec


@pytest.fixture
def setup(tmp_path):
    return tmp_path, small_spec(tmp_path, items=4), migrated_sqlite(tmp_path / "h.db")


def _refused(path, spec, db, *extra):
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         *MAPPING, *extra)  # fmt: skip
    assert result.exit_code == 1, result.output
    assert study_names(db) == []
    return result.output.splitlines()


def test_a_file_without_the_columns_of_a_batch_is_refused_at_its_header(setup):
    tmp_path, spec, db = setup
    rows = [{k: v for k, v in r.items() if k != "WorkerId"} for r in mapped_batch()]
    path = tmp_path / "cut.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert _refused(path, spec, db) == [
        f"{path}:1: missing column WorkerId: not a batch-results file as the requester "
        "website wrote it",
        "1 problem found.",
    ]


def test_a_column_the_mapping_names_must_be_in_the_file(setup):
    tmp_path, spec, db = setup
    path = write_batch(tmp_path / "b.csv", mapped_batch())
    lines = _refused(path, spec, db, "--value", "Answer.score_{n}")
    assert lines[0] == (
        f"{path}:1: Answer.score_1: the mapping names this column; the file has no such column"
    )


def test_rows_of_another_hit_type_refuse_the_import(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    rows[3]["HITTypeId"] = "3OTHER"
    path = write_batch(tmp_path / "b.csv", rows)
    assert _refused(path, spec, db)[0] == (
        f"{path}:5: HITTypeId: '3OTHER' differs from '3TYPE' ({path}:2): one import is one "
        "HIT type; import each HIT type as its own study"
    )
    assert _refused(path, spec, db, "--skip-bad-rows")[0].startswith(f"{path}:5: HITTypeId")


def test_an_assignment_given_twice_with_different_answers_is_a_contradiction(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    twice = dict(rows[1], **{"Answer.rating_1": "9"})
    path = write_batch(tmp_path / "b.csv", [*rows, twice])
    lines = _refused(path, spec, db)
    message = (
        "AssignmentId: assignment 3ASG0000W001 is given 2 times with different contents "
        f"({path}:3, {path}:8); which is right cannot be told"
    )
    assert lines == [f"{path}:3: {message}", f"{path}:8: {message}", "2 problems found."]


def test_spreadsheet_dates_unknown_items_and_values_off_the_scale_are_located(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    rows[0]["AcceptTime"] = "1/20/2021 8:00"  # as a spreadsheet re-saves it
    rows[1]["Input.item_2"] = "p99"
    rows[2]["Answer.rating_1"] = "11"
    rows[3]["Answer.rating_2"] = "seven"
    rows[4]["SubmitTime"] = "Tue Jan 20 08:04:15 PST 2021"  # 2021-01-20 was a Wednesday
    path = write_batch(tmp_path / "b.csv", rows)
    assert _refused(path, spec, db) == [
        f"{path}:2: AcceptTime: '1/20/2021 8:00' is not a time as the requester website wrote "
        "it (like 'Wed Jan 20 08:26:05 PST 2021'); a spreadsheet may have rewritten it: use the "
        "file as downloaded",
        f"{path}:3: Input.item_2: 'p99' is not an item of the spec",
        f"{path}:4: Answer.rating_1: 11 is not on the scale (0 to 10, steps of 1)",
        f"{path}:5: Answer.rating_2: 'seven' is not a number",
        f"{path}:6: SubmitTime: 'Tue Jan 20 08:04:15 PST 2021': 2021-01-20 is a Wed, not a Tue; "
        "the date was changed after the download",
        "5 problems found.",
    ]


def test_a_file_saved_in_another_encoding_is_named_with_its_line(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    rows[2]["Title"] = "Évaluer des paires"
    path = tmp_path / "b.csv"
    write_batch(path, rows)
    path.write_bytes(path.read_text(encoding="utf-8").encode("cp1252"))
    assert _refused(path, spec, db)[0] == (
        f"{path}:4: byte 0xc9 is not utf-8: a spreadsheet may have saved the file in another "
        "encoding; use the file as downloaded, or name its encoding with --encoding (e.g. "
        "cp1252)"
    )
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         "--encoding", "cp1252", *MAPPING)  # fmt: skip
    assert result.exit_code == 0, result.output


def test_skipping_bad_rows_stores_the_rest_and_writes_the_bad_ones_aside(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    rows[2]["Answer.rating_1"] = "11"
    path = write_batch(tmp_path / "b.csv", rows)
    aside = tmp_path / "aside.csv"
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         "--skip-bad-rows", "--kept-out", str(aside), *MAPPING)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "small: 5 assignments" in result.output
    assert f"1 rows kept out, written to {aside}:" in result.output
    with aside.open(encoding="utf-8", newline="") as f:
        kept = list(csv.DictReader(f))
    assert [(r["line"], r["AssignmentId"], r["Answer.rating_1"]) for r in kept] == [
        ("4", "3ASG0000W002", "11")
    ]
    assert kept[0]["problems"] == "Answer.rating_1: 11 is not on the scale (0 to 10, steps of 1)"


def test_times_read_back_as_written_across_daylight_saving():
    for days in range(0, 366, 5):
        moment = START + timedelta(days=days, hours=days % 24)
        assert parse_time(format_time(moment)) == moment
    assert format_time(START) == "Wed Jan 20 08:00:00 PST 2021"
    assert format_time(START.replace(month=7, day=20)) == "Tue Jul 20 09:00:00 PDT 2021"


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_fuzzed_file_is_stored_whole_or_refused_with_located_problems(tmp_path, data):
    spec = small_spec(tmp_path, items=4)
    good = tmp_path / "good.csv"
    write_batch(good, mapped_batch())
    raw = bytearray(good.read_bytes())
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(raw) - 1))
        kind = data.draw(st.sampled_from(["flip", "drop", "insert"]))
        byte = data.draw(st.sampled_from([b'"', b",", b"\n", b"\r", b"\x00", b"\xff", b"9", b"A"]))
        if kind == "flip":
            raw[at : at + 1] = byte
        elif kind == "drop":
            del raw[at]
        else:
            raw[at:at] = byte
    path = tmp_path / "fuzzed.csv"
    path.write_bytes(bytes(raw))
    db = migrated_sqlite(tmp_path / f"fuzz-{data.draw(st.integers(0, 10**9))}.db")
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         *MAPPING)  # fmt: skip
    if result.exit_code == 0:
        assert study_names(db) == ["small"]
        return
    assert result.exit_code == 1, result.output
    assert study_names(db) == []
    *problems, count = result.output.splitlines()
    assert count.endswith(("problem found.", "problems found."))
    assert problems and all(p.startswith(f"{path}") for p in problems)


def test_without_a_mapping_rows_must_be_harness_own_fields(setup):
    tmp_path, spec, db = setup
    path = write_batch(tmp_path / "b.csv", mapped_batch())
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{path}:1: no Answer.item-0 column: these are not harness's task pages; give the spec "
        "an imports.mturk_batch mapping (or --item and --value)",
        "1 problem found.",
    ]


def test_harness_own_fields_naming_an_unknown_item_are_located_at_that_field(setup):
    tmp_path, spec, db = setup
    rows = []
    for worker in range(2):
        row = {
            k: v for k, v in mapped_batch()[worker].items() if not k.startswith(("Input", "Ans"))
        }
        row.update({"Answer.item-0": "p00", "Answer.value-0": "4", "Answer.skip-0": ""})
        row.update({"Answer.item-1": "p01", "Answer.value-1": "5", "Answer.skip-1": ""})
        rows.append(row)
    rows[1]["Answer.item-1"] = "nope"
    path = write_batch(tmp_path / "b.csv", rows)
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{path}:3: Answer.item-1: 'nope' is not an item of the spec",
        "1 problem found.",
    ]
    assert study_names(db) == []


def test_a_batch_imported_twice_is_refused_by_name_then_by_its_hits(setup):
    tmp_path, spec, db = setup
    path = write_batch(tmp_path / "b.csv", mapped_batch())
    args = ("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db, *MAPPING)
    assert harness_cli(*args).exit_code == 0
    again = harness_cli(*args)
    assert again.exit_code == 1
    assert again.output == (
        "Error: a study named 'small' is in the store already; give --study a new name\n"
    )
    renamed = harness_cli(*args, "--study", "small-again")
    assert renamed.exit_code == 1
    assert renamed.output == "Error: HIT 3HIT0000 is stored already, in study 'small'\n"
    assert study_names(db) == ["small"]


def test_a_file_of_rows_kept_out_is_never_written_over(setup):
    tmp_path, spec, db = setup
    rows = mapped_batch()
    rows[2]["Answer.rating_1"] = "11"
    path = write_batch(tmp_path / "b.csv", rows)
    aside = tmp_path / "aside.csv"
    aside.write_text("an earlier import's rows\n", encoding="utf-8")
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         "--skip-bad-rows", "--kept-out", str(aside), *MAPPING)  # fmt: skip
    assert result.exit_code == 1
    assert result.output == f"Error: {aside} exists; give --kept-out another file\n"
    assert aside.read_text(encoding="utf-8") == "an earlier import's rows\n"
    assert study_names(db) == []


def test_a_file_a_spreadsheet_saved_with_semicolons_is_named_so(setup):
    tmp_path, spec, db = setup
    path = write_batch(tmp_path / "b.csv", mapped_batch())
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter=";").writerows(rows)
    assert _refused(path, spec, db) == [
        f"{path}:1: the columns are separated by ';', not ',': a spreadsheet re-saved the "
        "file; use the file as downloaded",
        "1 problem found.",
    ]


@pytest.mark.slow
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzzed_cells_are_refused_at_their_row_and_column_or_stored_whole(tmp_path, data):
    spec = small_spec(tmp_path, items=4)
    rows = mapped_batch()
    for _ in range(data.draw(st.integers(1, 4))):
        row = data.draw(st.integers(0, len(rows) - 1))
        column = data.draw(st.sampled_from(sorted(rows[row])))
        rows[row][column] = data.draw(st.text(max_size=30))
    path = write_batch(tmp_path / "fuzzed.csv", rows)
    db = migrated_sqlite(tmp_path / f"cells-{data.draw(st.integers(0, 10**9))}.db")
    result = harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                         *MAPPING)  # fmt: skip
    if result.exit_code == 0:
        assert study_names(db) == ["small"]
        return
    assert result.exit_code == 1, result.output
    assert study_names(db) == []
    *problems, count = result.output.splitlines()
    assert count.endswith(("problem found.", "problems found."))
    assert problems and all(p.startswith(f"{path}:") for p in problems), result.output
