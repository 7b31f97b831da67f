"""`harness import prolific-export`: Prolific's export joined to a study's workers, with the
same pseudonyms as `harness export --pseudonymize` when asked."""

from __future__ import annotations

import pandas as pd

from tests.archives.factories import MAPPING, mapped_batch, write_batch
from tests.factories import migrated_sqlite
from tests.platform.factories import harness_cli, small_spec

EXPORT = (
    "Submission id,Participant id,Status,Started at,Completed at,Time taken,Age,Sex,"
    "Country of residence\n"
    "s1,A000WORKER,APPROVED,2021-01-20T16:00:00Z,2021-01-20T16:01:15Z,75,34,Female,France\n"
    "s2,A001WORKER,RETURNED,2021-01-20T16:00:00Z,,,27,Male,Kenya\n"
    "s3,A001WORKER,APPROVED,2021-01-20T16:05:00Z,2021-01-20T16:06:15Z,75,27,Male,Kenya\n"
    "s4,SOMEONEELSE,APPROVED,2021-01-20T16:05:00Z,2021-01-20T16:06:15Z,75,51,Female,Chile\n"
)


def _study(tmp_path):
    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(tmp_path, items=4)
    path = write_batch(tmp_path / "b.csv", mapped_batch(4, 3))
    assert harness_cli("import", "mturk-batch", str(path), "--spec", str(spec), "--db", db,
                       *MAPPING).exit_code == 0  # fmt: skip
    export = tmp_path / "prolific_export.csv"
    export.write_text(EXPORT, encoding="utf-8")
    return db, export


def test_the_export_joins_every_worker_and_leaves_other_participants_out(tmp_path):
    db, export = _study(tmp_path)
    out = tmp_path / "people.csv"
    result = harness_cli("import", "prolific-export", str(export), "--study", "small",
                         "--db", db, "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.strip() == (
        f"small: 2 workers found in the export, 1 not in it; 1 export rows of other "
        f"participants left out; written to {out}"
    )
    people = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert people[["worker_id", "submission_id", "status", "age"]].values.tolist() == [
        ["A000WORKER", "s1", "APPROVED", "34"],
        ["A001WORKER", "s2", "RETURNED", "27"],
        ["A001WORKER", "s3", "APPROVED", "27"],
        ["A002WORKER", "", "", ""],
    ]


def test_pseudonymized_workers_match_the_pseudonymized_judgments(tmp_path):
    db, export = _study(tmp_path)
    out, judged = tmp_path / "people.csv", tmp_path / "judged.csv"
    assert harness_cli("import", "prolific-export", str(export), "--study", "small", "--db", db,
                       "--out", str(out), "--pseudonymize").exit_code == 0  # fmt: skip
    assert harness_cli("export", "small", "--db", db, "--out", str(judged),
                       "--pseudonymize").exit_code == 0  # fmt: skip
    people = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert "submission_id" not in people.columns
    assert "WORKER" not in out.read_text(encoding="utf-8")
    assert set(people["worker_id"]) == set(pd.read_csv(judged)["worker_id"])


def test_an_export_without_participant_ids_is_refused_naming_the_file(tmp_path):
    db, export = _study(tmp_path)
    export.write_text("id,age\n1,30\n", encoding="utf-8")
    result = harness_cli("import", "prolific-export", str(export), "--study", "small",
                         "--db", db, "--out", str(tmp_path / "o.csv"))  # fmt: skip
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {export}:1: no 'Participant id' column: not a Prolific submissions export "
        "(columns: id, age)\n"
    )
