"""`harness import mturk-batch`: batch results mapped onto a spec's items and stored as a study
that the later stages read like any other, and run again elsewhere with `launch --like`."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from harness.platform.submissions.after_submission import catch_up, hook
from harness.store import make_engine, session_scope
from harness.store.judgment_table import unscreened_assignments
from harness.web.dashboard import create_dashboard_app
from tests.archives.factories import (
    MAPPING,
    batch_row,
    mapped_batch,
    stored_judgments,
    study_names,
    write_batch,
)
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec
from tests.web.dashboard.factories import PASSWORD, SETTINGS


def _import(*args: str):
    return harness_cli("import", "mturk-batch", *args)


def test_mapped_columns_give_one_judgment_per_answer_with_workers_and_statuses(
    tmp_path, database_url
):
    db = database_url
    spec = small_spec(tmp_path, items=4)
    rows = mapped_batch(items=4, workers=3)
    rows[0]["AssignmentStatus"] = "Rejected"
    path = write_batch(tmp_path / "Batch_1_batch_results.csv", rows)
    result = _import(str(path), "--spec", str(spec), "--db", db, *MAPPING)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "small: 6 assignments of 3 workers on 2 HITs, 12 judgments stored"
    )
    judgments = stored_judgments(db, "small")
    first = judgments[judgments["assignment_id"] == "3ASG0000W000"]
    assert first[["item_id", "worker_id", "value", "position"]].values.tolist() == [
        ["p00", "A000WORKER", 0.0, 0],
        ["p01", "A000WORKER", 1.0, 1],
    ]
    status = harness_cli("status", "small", "--db", db)
    assert status.output.splitlines()[:3] == [
        "study small on archive: finished",
        "  HITs (2): disposed 2",
        "  assignments (6): approved 5, rejected 1",
    ]
    assert "money: committed $0.72, spent $0.60" in status.output  # $0.10 a HIT, fees on top
    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 1
    assert synced.output == (
        "Error: this study was imported from mturk's files (target archive): there is no "
        "platform to ask; screen, characterize, export, status and the dashboard read it, and "
        "`harness launch SPEC --like STUDY` runs its instrument again\n"
    )


def test_the_dashboard_shows_an_imported_study(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=4)
    path = write_batch(tmp_path / "Batch_1_batch_results.csv", mapped_batch(items=4, workers=3))
    assert _import(str(path), "--spec", str(spec), "--db", db, *MAPPING).exit_code == 0
    app = create_dashboard_app(db, SETTINGS)
    try:
        client = app.test_client()
        page = client.get("/dashboard/login").get_data(as_text=True)
        token = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert token is not None
        client.post("/dashboard/login", data={"password": PASSWORD, "csrf_token": token[1]})
        study = client.get("/dashboard/study/small")
        assert study.status_code == 200
        text = study.get_data(as_text=True)
        assert '<h1>small <span class="muted">on archive</span>' in text
        assert "disposed 2" in text
    finally:
        app.extensions["harness.web.dashboard"].close()


def test_several_files_of_one_batch_count_each_assignment_once(tmp_path, database_url):
    db = database_url
    spec = small_spec(tmp_path, items=4)
    rows = mapped_batch(items=4, workers=3)
    early = [dict(r, AssignmentStatus="Submitted") for r in rows[:4]]
    first = write_batch(tmp_path / "Batch_1_batch_results.csv", early)
    second = write_batch(tmp_path / "Batch_1_batch_results (1).csv", rows)
    result = _import(str(first), str(second), "--spec", str(spec), "--db", db, *MAPPING)
    assert result.exit_code == 0, result.output
    assert "6 assignments" in result.output
    assert "4 rows repeated an assignment already read: counted once" in result.output
    exported = tmp_path / "out.csv"
    assert harness_cli("export", "small", "--db", db, "--out", str(exported)).exit_code == 0
    assert len(pd.read_csv(exported)) == 12


def test_a_crowd_form_is_read_by_what_its_items_showed_with_labels_mapped_to_values(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=2, per_hit=1)
    with spec.open("a", encoding="utf-8") as f:
        f.write(
            "imports:\n  mturk_batch:\n    item: {left: Input.word1, right: Input.word2}\n"
            "    value: Answer.similarity\n    values: {unrelated: 0, identical: 10}\n"
        )
    rows = []
    for worker, answer in enumerate(["unrelated", 7, "identical"]):
        row = batch_row(0, worker, [], [], **{"Input.word1": "word1", "Input.word2": "other1"})
        row["Answer.taskAnswers"] = json.dumps([{"similarity": answer, "comment": "fine"}])
        rows.append(row)
    path = write_batch(tmp_path / "Batch_2_batch_results.csv", rows)
    result = _import(str(path), "--spec", str(spec), "--db", db)
    assert result.exit_code == 0, result.output
    judgments = stored_judgments(db, "small")
    assert judgments[["item_id", "value"]].values.tolist() == [
        ["p01", 0.0],
        ["p01", 7.0],
        ["p01", 10.0],
    ]


@pytest.mark.slow
def test_an_imported_study_is_screened_characterized_and_launched_again_alike(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=30)
    for seed, name in ((0, "first"), (1, "second")):
        path = write_batch(tmp_path / f"Batch_{seed}.csv", mapped_batch(30, 3, seed=seed))
        result = _import(str(path), "--spec", str(spec), "--db", db, "--study", name, *MAPPING)
        assert result.exit_code == 0, result.output
    screened = harness_cli("screen", "first", "--db", db)
    assert screened.exit_code == 0, screened.output
    assert "A000WORKER" in screened.output
    report = tmp_path / "report"
    characterized = harness_cli(
        "characterize", "--new", "second", "--original", "first", "--db", db,
        "--out", str(report), "--bootstrap", "0", "--quiet",
    )  # fmt: skip
    assert characterized.exit_code == 0, characterized.output
    assert json.loads((report / "report.json").read_text())["reproducibility"] is not None

    again = small_spec(tmp_path, items=30, name="again", hosting="external")
    launched = harness_cli(
        "launch", str(again), "--target", "link", "--db", db,
        "--public-url", "http://tasks.test", "--like", "first",
    )  # fmt: skip
    assert launched.exit_code == 0, launched.output
    assert "same instrument as first: " in launched.output
    assert study_names(db) == ["again", "first", "second"]


def test_launch_like_refuses_another_instrument_or_the_same_name(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=4, hosting="external")
    path = write_batch(tmp_path / "Batch_1.csv", mapped_batch(4, 3))
    assert _import(str(path), "--spec", str(spec), "--db", db, *MAPPING).exit_code == 0
    link = ("--target", "link", "--db", db, "--public-url", "http://tasks.test")
    same_name = harness_cli("launch", str(spec), *link, "--like", "small")
    assert same_name.exit_code == 1
    assert "--like small: the new study needs its own study.name" in same_name.output
    other = small_spec(tmp_path, items=4, name="other", raters=3, hosting="external")
    refused = harness_cli("launch", str(other), *link, "--like", "small")
    assert refused.exit_code == 1
    assert "--like small: this spec is instrument " in refused.output
    assert study_names(db) == ["small"]


def test_a_task_servers_sweep_screens_an_imported_study_and_acts_on_nothing(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=4, screening="{low_variance: {action: block}}")
    path = write_batch(tmp_path / "Batch_1_batch_results.csv", mapped_batch(items=4, workers=3))
    assert _import(str(path), "--spec", str(spec), "--db", db, *MAPPING).exit_code == 0
    engine = make_engine(db)
    try:
        assert catch_up(engine, hook(True), acting=True) == {1: None}
        with session_scope(engine) as session:
            assert unscreened_assignments(session, 1) == []
    finally:
        engine.dispose()


def _radio_rows(chosen: list[list[str]]) -> list[dict[str, str]]:
    """A crowd-radio-group per row: each button's field true when chosen, as the form posts."""
    rows = []
    for worker, picked in enumerate(chosen):
        row = batch_row(0, worker, [], [], **{"Input.item_id": "p00"})
        buttons = {name: {name: name in picked} for name in ("low", "mid", "high")}
        row["Answer.taskAnswers"] = json.dumps([buttons])
        rows.append(row)
    return rows


def test_a_crowd_radio_group_answers_with_the_value_of_the_button_chosen(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=2, per_hit=1)
    path = write_batch(tmp_path / "Batch_3.csv", _radio_rows([["low"], ["high"], ["mid"]]))
    choices = ["--choice", "Answer.low.low=0", "--choice", "Answer.mid.mid=5"]
    choices += ["--choice", "Answer.high.high=10"]
    result = _import(
        str(path), "--spec", str(spec), "--db", db, "--item", "Input.item_id", *choices
    )
    assert result.exit_code == 0, result.output
    assert stored_judgments(db, "small")["value"].tolist() == [0.0, 10.0, 5.0]


def test_two_buttons_chosen_in_one_group_are_a_located_problem(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=2, per_hit=1)
    with spec.open("a", encoding="utf-8") as f:
        f.write(
            "imports:\n  mturk_batch:\n    item: Input.item_id\n"
            "    choices: {Answer.low.low: 0, Answer.high.high: 10}\n"
        )
    path = write_batch(tmp_path / "Batch_3.csv", _radio_rows([["low"], ["low", "high"]]))
    result = _import(str(path), "--spec", str(spec), "--db", db)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{path}:3: Answer.low.low | Answer.high.high: 2 choices made (Answer.low.low, "
        "Answer.high.high); one only",
        "1 problem found.",
    ]


def test_a_mapping_gives_exactly_one_of_value_or_choices(tmp_path):
    spec = small_spec(tmp_path, items=2, per_hit=1)
    with spec.open("a", encoding="utf-8") as f:
        f.write("imports:\n  mturk_batch:\n    item: Input.item_id\n")
    line = spec.read_text(encoding="utf-8").splitlines().index("  mturk_batch:") + 1
    result = harness_cli("validate", str(spec))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{spec}:{line}: imports.mturk_batch: give exactly one of value or choices",
        "1 problem found.",
    ]
