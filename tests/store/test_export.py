"""`harness export`: a stored study's judgments as a file, round-tripping to the stored long
table, in crowd-kit's columns that its aggregators read unchanged, and pseudonymized so that
no platform id leaves the store."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.simulate import Crowd, simulate_judgments
from harness.simulate.stored import store_assignments
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope, study_judgments
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec
from tests.platform.factories import harness_cli


@pytest.fixture
def stored(tmp_path, database_url):
    """A study named ``tiny`` with 4 items x 3 simulated raters in the store; its long table."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    truths = pd.Series([2.0, 4.0, 6.0, 8.0], index=["a", "b", "c", "d"])
    table = simulate_judgments(truths, loaded.scale, Crowd({"careful": 1.0}, 5, 3), 3, 2, 3)
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        list(store_assignments(session, study, table.drop(columns="true_archetype")))
    with session_scope(engine) as session:
        judgments = study_judgments(session, study.id)
    engine.dispose()
    return database_url, judgments


def _export(database_url, out, *options):
    done = harness_cli("export", "tiny", "--db", database_url, "--out", str(out), *options)
    assert done.exit_code == 0, done.output
    return done.output


def _read_jsonl(path):
    return pd.read_json(path, orient="records", lines=True)


@pytest.mark.parametrize("form", ["csv", "jsonl", "parquet"])
def test_an_export_reads_back_as_the_stored_long_table(tmp_path, stored, form):
    database_url, judgments = stored
    out = tmp_path / f"tiny.{form}"
    said = _export(database_url, out, "--format", form)
    assert f"tiny: {len(judgments)} rows written to {out}" in said
    read = {"csv": pd.read_csv, "jsonl": _read_jsonl, "parquet": pd.read_parquet}[form]
    back = read(out)
    assert list(back.columns) == list(judgments.columns)
    for column in ("item_id", "worker_id", "assignment_id", "hit_id", "role"):
        assert back[column].astype(str).tolist() == judgments[column].astype(str).tolist()
    assert back["value"].tolist() == pytest.approx(judgments["value"].tolist())
    assert back["position"].tolist() == judgments["position"].tolist()


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # crowd-kit's own use of pandas
def test_crowdkit_aggregators_read_the_crowdkit_export_unchanged(tmp_path, stored):
    from crowdkit.aggregation import MajorityVote

    database_url, judgments = stored
    out = tmp_path / "tiny.csv"
    _export(database_url, out, "--columns", "crowdkit")
    export = pd.read_csv(out)
    assert list(export.columns) == ["task", "worker", "label"]
    assert len(export) == int((judgments["role"] == "item").sum())
    labels = MajorityVote().fit_predict(export)
    assert set(labels.index) == {"a", "b", "c", "d"}


def test_a_pseudonymized_export_carries_no_platform_id_and_keeps_who_is_who(tmp_path, stored):
    database_url, judgments = stored
    first, second = tmp_path / "one.csv", tmp_path / "two.csv"
    said = _export(database_url, first, "--pseudonymize")
    assert "(platform ids pseudonymized)" in said
    _export(database_url, second, "--pseudonymize")
    text = first.read_text()
    for column in ("worker_id", "assignment_id", "hit_id"):
        for platform_id in judgments[column].dropna().astype(str).unique():
            assert platform_id not in text
    back = pd.read_csv(first)
    # one worker, one pseudonym: who rated what survives, and the key is the store's own
    pairs = set(zip(judgments["worker_id"], back["worker_id"], strict=True))
    assert len(pairs) == judgments["worker_id"].nunique() == back["worker_id"].nunique()
    assert back["worker_id"].str.startswith("w-").all()
    assert first.read_text() == second.read_text()


def test_an_export_never_overwrites_a_file_unasked(tmp_path, stored):
    database_url, _ = stored
    out = tmp_path / "mine.csv"
    out.write_text("keep me")
    refused = harness_cli("export", "tiny", "--db", database_url, "--out", str(out))
    assert refused.exit_code == 1
    assert f"export: {out} exists; give another --out or add --overwrite" in refused.output
    assert out.read_text() == "keep me"
    _export(database_url, out, "--overwrite")
    assert out.read_text().startswith("item_id,")


def test_exporting_a_study_the_store_does_not_hold_names_those_it_does(tmp_path, stored):
    database_url, _ = stored
    missing = harness_cli("export", "nope", "--db", database_url, "--out", str(tmp_path / "x"))
    assert missing.exit_code == 1
    assert "no study named 'nope' in the store (studies: tiny)" in missing.output
