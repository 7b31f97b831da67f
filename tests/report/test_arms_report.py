"""`harness characterize` on a study with arms (both stores): one arm is characterized, never
the arms pooled; the report's Arms section, second after the summary, gives each arm's
figures, the differences with their intervals, the verdict first, the raters needed, controls
passed and which arm reproduces the original; the JSON carries the same comparison."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from harness.characterize.arm_figures import ArmsFigures
from harness.cli import main
from harness.report.arms import arms_meaning
from harness.simulate.arms import simulate_arms
from harness.store import find_study, make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms
from harness.store.models import InstrumentVersion
from tests.providers.link.arm_study import (
    arms_spec,
    careful_long_careless_short,
    client_fetch,
    launch,
    original_csv,
    work_all,
)
from tests.providers.link.test_link_platform import _client

ITEMS = 16


def build_arms_study(directory, db) -> dict[str, object]:
    """The arms study (16 items, 3 raters per item per arm) worked through the pages, and an
    original CSV over its items."""
    spec = arms_spec(directory, items=ITEMS, raters=3)
    launch(spec, db)
    app, client = _client(db)
    try:
        posted = work_all(
            client_fetch(client),
            db,
            spec,
            [f"P{i}" for i in range(8)],
            careful_long_careless_short(items=ITEMS),
        )
    finally:
        app.extensions["harness"].close()
    return {"posted": posted, "original": original_csv(directory / "orig.csv", items=ITEMS)}


def characterize(db, original, out, *extra):
    return CliRunner().invoke(
        main,
        [
            "characterize",
            "--new",
            "small",
            "--original",
            str(original),
            "--db",
            db,
            "--min-shared-items",
            "4",
            "--bootstrap",
            "100",
            "--out",
            str(out),
            *extra,
        ],
    )


def _arm_judgments(db: str, arm: str) -> pd.DataFrame:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = find_study(session, "small")
            ref = next(a for a in study_arms(session, study.id) if a.name == arm)
            version = session.get(InstrumentVersion, ref.instrument_id)
            table = study_judgments(session, study.id)
            return table[
                (table["instrument_hash"] == version.hash) & table["role"].isin(["item", "gold"])
            ]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_study_with_arms_is_characterized_one_arm_with_an_arms_section(tmp_path, database_url):
    built = build_arms_study(tmp_path, database_url)
    out = tmp_path / "report"
    result = characterize(database_url, built["original"], out)
    assert result.exit_code == 0, result.output
    assert (
        "characterize: small has arms (long, short): characterizing arm long; the Arms "
        "section compares them all"
    ) in result.output
    # 4 workers per arm: too few for the relabeling test to tell the arms apart at 95%
    assert (
        "arms of small: Arms short and long are not distinguishable with this many raters: "
        "difference -0."
    ) in result.output
    assert "too few workers to tell arms apart by relabeling" in result.output
    data = json.loads((out / "report.json").read_text())
    # the instrument figures are arm long's alone, never the arms pooled
    long = _arm_judgments(database_url, "long")
    assert data["new"]["card"]["name"] == "small (arm long)"
    assert data["new"]["card"]["arm"].startswith("long (the base), one of the study's 2 arms")
    assert data["new"]["repeatability"]["n_judgments"] == len(long)
    sds = long.groupby("item_id")["value"].std(ddof=1)
    assert data["new"]["precision"]["mean_sd"] == pytest.approx(sds.mean())
    arms = data["arms"]
    assert arms["characterized_arm"] == "long" and arms["arms_in_order"] == ["long", "short"]
    assert [a["arm"] for a in arms["arms"]] == ["long", "short"]
    verdict = arms["differences"][0]["verdict"]
    assert verdict.startswith("arms short and long are not distinguishable")
    assert arms["reference_name"] == "orig" and arms["best_reference"] == "long"
    posted = built["posted"].checks
    assert [c["checks"] for c in arms["controls"]] == [
        sum(posted["long"].values()),
        sum(posted["short"].values()),
    ]
    assert [c["share"] for c in arms["controls"]] == [1.0, 0.0]
    markdown = (out / "report.md").read_text()
    sections = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert sections[:3] == ["## Summary", "## Arms", "## Measurement procedure cards"]
    arms_part = markdown.split("## Arms")[1].split("## Measurement")[0]
    assert arms_part.lstrip().startswith("> Arms short and long are not distinguishable with this")
    assert "Arm long's item means agree best with orig's." in arms_part
    assert "| short | not distinguishable: -0." in arms_part
    assert "raters per item per arm |" in arms_part
    assert "| short | 0 of " in arms_part and "against long -100 points [" in arms_part
    summary = markdown.split("## Summary")[1].split("## Arms")[0]
    assert "| arms (2: long, short) | this report's instrument is arm long; Arms short" in summary
    # another arm on request; an unknown arm and an arm of a file are refused
    other = characterize(database_url, built["original"], tmp_path / "short", "--arm", "short")
    assert other.exit_code == 0, other.output
    short = json.loads((tmp_path / "short" / "report.json").read_text())
    assert short["new"]["card"]["name"] == "small (arm short)"
    assert short["new"]["repeatability"]["n_judgments"] == len(
        _arm_judgments(database_url, "short")
    )
    assert short["arms"]["characterized_arm"] == "short"
    unknown = characterize(database_url, built["original"], tmp_path / "x", "--arm", "nope")
    assert unknown.exit_code == 1
    assert "Error: --arm nope: study 'small' has no such arm (its arms: long, short)" in (
        unknown.output
    )
    csv = CliRunner().invoke(
        main,
        [
            "characterize",
            "--new",
            str(built["original"]),
            "--original",
            str(built["original"]),
            "--arm",
            "long",
            "--out",
            str(tmp_path / "y"),
        ],
    )
    assert csv.exit_code == 1
    assert f"--arm long: {built['original']} is not a stored study" in csv.output


def _figures(resamples: int = 50, problem: str | None = None) -> ArmsFigures:
    from harness.characterize.arms import compare_arms

    table = simulate_arms({"a": 1.0, "b": 1.0}, items=20, raters_per_item=3, seed=3)
    comparison = None if problem else compare_arms(table, resamples=resamples)
    return ArmsFigures("s", ["a", "b"], "a", comparison, problem)


def test_the_verdict_sentence_says_when_there_is_none_and_why():
    assert arms_meaning(_figures()).startswith(
        "Arms b and a are not distinguishable with this many raters: difference "
    )
    assert arms_meaning(_figures(resamples=0)) == (
        "No verdict: the comparison ran without bootstrap resamples (--bootstrap 0), so the "
        "differences between arms have no intervals."
    )
    assert arms_meaning(_figures(problem="only 2 item(s) have two or more values")) == (
        "The arms could not be compared: only 2 item(s) have two or more values."
    )
