"""`harness characterize` end to end: three files from CSVs, WS353 and its systems; JSON keys;
progress and --quiet; a stored study as NEW; and every bad input named in the message."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

import harness
from harness.cli import main
from harness.judgments import write_judgments
from harness.report.verdict import RELIABILITY_RULE
from harness.store import make_engine, session_scope
from tests.characterize import factories
from tests.factories import PROJECT_ROOT, WS353_DIR, WS353_SYSTEMS_DIR

REQUIRED_KEYS = [
    "new.repeatability.alpha",
    "new.repeatability.ci",
    "new.precision.mean_sd",
    "new.precision.sd_sd",
    "original.repeatability.alpha",
    "original.repeatability.ci",
    "original.precision.mean_sd",
    "original.precision.sd_sd",
    "reproducibility.spearman_means",
    "reproducibility.pearson_means",
    "reproducibility.pearson_sds",
    "resolution.threshold_95",
    "resolution.curve",
    "resolution.item_pairs_above",
    "resolution.item_pairs_below",
    "resolution.bands",
    "resolution.psychometric.d_target",
    "resolution.psychometric.ci",
    "systems.minilm.rho.new",
    "systems.minilm.rho.original",
    "systems.minilm_frame.rho.new",
    "systems.char3gram.rho.original",
    "mrds",
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    return factories.write_inputs(tmp_path_factory.mktemp("inputs"))


def run(*args: str):
    return CliRunner().invoke(main, ["characterize", *args])


def _get(data: dict, dotted: str):
    for key in dotted.split("."):
        assert key in data, f"{dotted}: no {key!r}"
        data = data[key]
    return data


@pytest.fixture(scope="module")
def report(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    # ws353 with no directory: the bundled WS353 and the bundled systems' predictions
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        "ws353",
        "--resolution",
        str(inputs["resolution"]),
        "--system",
        "ws353",
        "--bootstrap",
        "200",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    return out, result


def test_the_command_writes_html_markdown_pngs_and_json(report):
    out, result = report
    for name in (
        "report.html",
        "report.md",
        "report.json",
        "crescent.png",
        "means.png",
        "sds.png",
        "resolution.png",
        "psychometric.png",
        "per_rater_rho.png",
    ):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    markdown = (out / "report.md").read_text()
    assert "![" in markdown and "(crescent.png)" in markdown
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 6
    assert "http://" not in html and "https://" not in html  # nothing external
    assert "@media print" in html


def test_the_report_cites_harness_own_methods_by_version_and_they_exist(report):
    html = (report[0] / "report.html").read_text()
    version = harness.__version__
    cited = f"the methods documentation of harness {version} (docs/methods.md in its source)"
    assert f"Every figure is defined in {cited}, section 6" in html
    assert f"({cited}, section 5)" in html and "METHODS.md" not in html
    methods = (PROJECT_ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    assert "\n## 5. Agreement and reliability\n" in methods
    assert "\n## 6. Characterizing an instrument\n" in methods


def test_a_shared_report_names_its_data_by_dataset_and_version_not_a_local_path(report, inputs):
    """Issue 39: the source row printed where this machine keeps the bundled WS353."""
    from harness.datasets.ws353 import bundled_ws353_dir

    out, _ = report
    for name in ("report.html", "report.md", "report.json"):
        text = (out / name).read_text()
        assert str(bundled_ws353_dir()) not in text, name
        assert str(inputs["new"].parent) not in text, name
    markdown = (out / "report.md").read_text()
    assert "WordSimilarity-353 version 1.0, the authors' distribution bundled with harness" in (
        markdown
    )
    assert f"long judgments CSV {inputs['new'].name} (SHA-256 " in markdown


def test_the_json_has_every_stable_key(report):
    data = json.loads((report[0] / "report.json").read_text())
    for key in REQUIRED_KEYS:
        _get(data, key)
    curve = _get(data, "resolution.curve")
    assert set(curve[0]) == {"threshold", "agreement", "n"} and curve[0]["threshold"] == 0
    assert len(_get(data, "new.repeatability.ci")) == 2
    assert {"r", "p0", "mrds", "n"} <= set(data["mrds"][0])


def test_the_json_figures_are_the_reports_figures(report):
    data = json.loads((report[0] / "report.json").read_text())
    ws353 = factories.ws353().rater_table(13)  # --original ws353: the study's 13 raters
    sds = ws353.groupby("item_id")["value"].std(ddof=1)  # sample sds
    assert data["original"]["precision"]["mean_sd"] == pytest.approx(sds.mean())
    assert data["original"]["precision"]["ddof"] == 1
    assert data["systems"]["minilm_frame"]["rho"]["original"] == pytest.approx(0.737, abs=5e-4)
    html = (report[0] / "report.html").read_text()
    assert f"{data['reproducibility']['spearman_means']:.3f}" in html


def test_the_command_prints_headline_figures_and_progress_on_stderr(report):
    out, result = report
    assert "alpha WS353 (original): 0.590" in result.stdout
    assert "Can these instruments tell minilm from minilm_frame" in result.stdout
    assert "on WS353, no: rho 0.729 vs 0.737 (difference +0.008" in result.stdout
    assert "characterize: reading the new instrument" in result.stderr


def test_the_16_rater_table_is_a_named_variant_of_the_original(inputs, tmp_path):
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        "ws353-16",
        "--bootstrap",
        "0",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert "alpha WS353 (16 raters) (original): 0.560" in result.stdout
    card = json.loads((tmp_path / "report.json").read_text())["original"]["card"]
    assert card["raters"] == "16" and card["judgments"] == "5,189"


def test_quiet_silences_progress(inputs, tmp_path):
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--bootstrap",
        "20",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert (tmp_path / "report.html").is_file()


def test_without_a_bootstrap_the_report_has_no_intervals(inputs, tmp_path):
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--bootstrap",
        "0",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["new"]["repeatability"]["ci"] is None
    assert data["resolution"] is None and data["systems"] is None and data["screened"] is None
    assert "No resolution study was given" in (tmp_path / "report.md").read_text()


def test_screened_figures_are_shown_beside_those_for_all_judgments(inputs, tmp_path):
    flagged = tmp_path / "flagged.txt"
    flagged.write_text("w001\nw002\n")
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        f"ws353:{WS353_DIR}",
        "--flagged",
        str(flagged),
        "--screening-policy",
        "H3+H8",
        "--bootstrap",
        "20",
        "--quiet",
        "--out",
        str(tmp_path / "r"),
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    assert data["screened"]["workers_removed"] == ["w001", "w002"]
    assert (
        data["screened"]["new"]["repeatability"]["alpha"] != data["new"]["repeatability"]["alpha"]
    )
    html = (tmp_path / "r" / "report.html").read_text()
    assert "(new, all judgments)" in html and "(new, screened: H3+H8)" in html
    # A correlation's change is a difference, never a percentage; only the mean sd has one.
    markdown = (tmp_path / "r" / "report.md").read_text()
    rows = {
        line.split(" | ")[0].strip("| "): line
        for line in markdown.splitlines()
        if line.startswith("| ")
    }
    assert rows["Spearman rho of means vs original"].rstrip(" |").endswith("| -")
    assert rows["alpha"].rstrip(" |").endswith("| -")
    assert rows["mean sd"].rstrip(" |").endswith("%")


def test_the_verdict_comes_first_with_its_criteria(inputs, tmp_path):
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        "ws353",
        "--bootstrap",
        "50",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("Verdict: reproduction does not reproduce WS353: the reliability")
    assert "order (Spearman rho of the item means >= 0.9): met" in result.stdout
    markdown = (tmp_path / "report.md").read_text()
    summary = markdown.split("## Summary", 1)[1]
    assert summary.lstrip().startswith("> Verdict: reproduction does not reproduce WS353")
    assert f"| reliability | {RELIABILITY_RULE} |" in summary


def test_items_not_matching_the_original_are_refused_with_the_overlap(inputs, tmp_path):
    table = factories.reproduction()
    few = table[table["item_id"].isin(sorted(table["item_id"].unique())[:12])]
    path = tmp_path / "few.csv"
    write_judgments(few, path)
    result = run("--new", str(path), "--original", str(inputs["ws353"]), "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "Error: few and ws353 share 12 item(s)" in result.output
    assert "at least 30 shared items are needed" in result.output


def test_a_resolution_file_over_other_items_is_refused_naming_it(inputs, tmp_path):
    table = factories.resolution_study()
    table.loc[table["item_id"] == "pp-003", "q_item_id"] = "other-7"
    path = tmp_path / "res.csv"
    write_judgments(table, path)
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--resolution",
        str(path),
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 1
    assert "Error: res: 1 item(s) of its pairs of pairs are not items of the original" in (
        result.output
    )
    assert "other-7" in result.output


def test_a_system_file_missing_items_is_refused_naming_the_file(inputs, tmp_path):
    path = tmp_path / "short.csv"
    lines = (WS353_SYSTEMS_DIR / "minilm.csv").read_text().splitlines()
    path.write_text("\n".join(lines[:-3]) + "\n")
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        f"ws353:{WS353_DIR}",
        "--system",
        f"mini={path}",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 1
    assert f"Error: {path}: system 'mini' has no score for 3 of the 353 items" in result.output


def test_a_generic_system_file_needs_item_id_and_score(inputs, tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("id,value\nws353-001,0.3\n")
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--system",
        str(path),
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 1
    assert f"Error: {path}: expected columns item_id, score" in result.output


def test_a_missing_file_and_an_unknown_study_are_named(inputs, tmp_path):
    result = run("--new", "nothere.csv", "--original", str(inputs["ws353"]))
    assert result.exit_code == 1 and "Error: nothere.csv: no such file" in result.output
    db = tmp_path / "empty.db"
    from harness.store.migrations import upgrade

    upgrade(f"sqlite:///{db}")
    result = run("--new", "ws353-reproduction", "--original", str(inputs["ws353"]), "--db", str(db))
    assert result.exit_code == 1
    assert (
        "Error: 'ws353-reproduction' is no file, and no study named 'ws353-reproduction' in "
        "the store (it holds no study yet)"
    ) in result.output


@pytest.mark.slow
def test_stored_studies_are_characterized_with_their_card(database_url, inputs, tmp_path):
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        factories.store_study(
            session, factories.reproduction_spec(), factories.reproduction(), "repro-1"
        )
        factories.store_study(
            session, factories.resolution_spec(), factories.resolution_study(), "res-1"
        )
    engine.dispose()
    result = run(
        "--new",
        "repro-1",
        "--original",
        str(inputs["ws353"]),
        "--db",
        database_url,
        "--resolution",
        "res-1",
        "--bootstrap",
        "20",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text())
    card = data["new"]["card"]
    assert card["name"] == "repro-1"
    assert card["instrument hash"] == factories.reproduction_spec().instrument_hash
    assert card["raters per item (planned in the spec)"] == "13" and card["pay"] == "$0.75 per HIT"
    assert "low_variance: block" in card["screening policy"]
    engine = make_engine(database_url)  # when it ran: the assignments' own times (issue 39:
    with session_scope(engine) as session:  # a simulated crowd's answer times run on past it)
        from harness.store.models import Assignment, Hit, Study, aware

        rows = session.exec(
            select(Assignment)
            .join(Hit, Hit.id == Assignment.hit_id)
            .join(Study, Study.id == Hit.study_id)
            .where(Study.name == "repro-1")  # res-1's, stored after, may end a minute later
        ).all()
        first = min(aware(a.accepted_at) for a in rows)
        last = max(aware(a.submitted_at) for a in rows)
    engine.dispose()
    assert card["dates"] == (
        f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC (first accepted to last submitted)"
    )
    sds = factories.reproduction().groupby("item_id")["value"].std(ddof=1)
    assert data["new"]["precision"]["mean_sd"] == pytest.approx(sds.mean())
    from_csv = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--resolution",
        str(inputs["resolution"]),
        "--bootstrap",
        "20",
        "--quiet",
        "--out",
        str(tmp_path / "csv"),
    )
    assert from_csv.exit_code == 0, from_csv.output
    csv_data = json.loads((tmp_path / "csv" / "report.json").read_text())
    assert data["resolution"] == csv_data["resolution"]  # the store gives the same study back


def test_flagged_workers_who_did_not_rate_are_refused(inputs, tmp_path):
    flagged = tmp_path / "flagged.txt"
    flagged.write_text("w001\nnobody\n")
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        str(inputs["ws353"]),
        "--flagged",
        str(flagged),
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 1
    assert f"Error: {flagged}: 1 worker(s) are not raters of reproduction (e.g. 'nobody')" in (
        result.output
    )


def test_screening_with_a_specs_policy_reports_its_flagged_workers_and_every_subset(
    inputs, tmp_path
):
    from harness.screening import ScreeningContext, screen_workers
    from harness.screening.impact import screening_impact
    from harness.spec import load_spec
    from tests.factories import TASK_SPECS

    spec = TASK_SPECS / "ws353_reproduction.yaml"
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        f"ws353:{WS353_DIR}",
        "--screen",
        str(spec),
        "--bootstrap",
        "0",
        "--quiet",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text())
    judgments = factories.reproduction()
    context = ScreeningContext.from_spec(load_spec(spec))
    flagged = screen_workers(judgments, context).flagged
    assert data["screened"]["workers_removed"] == sorted(flagged[flagged].index)
    assert data["screened"]["policy"] == "ws353_reproduction"
    expected = screening_impact(judgments, context)
    impact = data["screened"]["impact"]
    assert len(impact) == len(expected) == 2**5  # the policy names five heuristics
    assert [row["label"] for row in impact] == expected["label"].tolist()
    policy_row = next(row for row in impact if row["policy"])
    assert policy_row["workers_removed"] == len(data["screened"]["workers_removed"])
    assert policy_row["alpha"] == pytest.approx(data["screened"]["new"]["repeatability"]["alpha"])
    html = (tmp_path / "report.html").read_text()
    assert "All 32 subsets of the heuristics are listed." in html
    # Heuristics are named as the spec names them, with a legend of codes and meanings.
    markdown = (tmp_path / "report.md").read_text()
    assert "| low_variance + low_correlation + consensus_correlation (policy) |" in markdown
    assert "Legend: the heuristics above, by the names a task spec's screening section" in markdown
    assert "| consensus_correlation | H8 | correlation with the leave-one-out consensus" in markdown


def test_screen_and_flagged_together_are_refused(inputs, tmp_path):
    flagged = tmp_path / "flagged.txt"
    flagged.write_text("w001\n")
    result = run(
        "--new",
        str(inputs["new"]),
        "--original",
        f"ws353:{WS353_DIR}",
        "--screen",
        "task_specs/ws353_reproduction.yaml",
        "--flagged",
        str(flagged),
        "--out",
        str(tmp_path / "r"),
    )
    assert result.exit_code == 1
    assert "give one of --screened, --flagged or --screen" in result.output


@pytest.mark.slow
def test_a_study_in_pounds_is_reported_in_pounds(database_url, inputs, tmp_path):
    loaded = factories.reproduction_spec()
    platform = loaded.spec.platform.model_copy(update={"currency": "GBP"})
    spec = loaded.spec.model_copy(update={"platform": platform, "budget": Decimal("1500")})
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        factories.store_study(session, replace(loaded, spec=spec), factories.reproduction(), "gbp")
    engine.dispose()
    args = ("--original", str(inputs["ws353"]), "--db", database_url, "--bootstrap", "20")
    result = run("--new", "gbp", *args, "--quiet", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    card = json.loads((tmp_path / "report.json").read_text())["new"]["card"]
    assert (card["pay"], card["budget"]) == ("£0.75 per HIT", "£1,500.00")
    for written in ("report.md", "report.html"):
        text = (tmp_path / written).read_text(encoding="utf-8")
        assert "£0.75 per HIT" in text and "£1,500.00" in text, written
        assert "$0.75" not in text, written


@pytest.mark.slow
def test_a_stored_studys_alpha_min_is_the_one_its_report_uses(database_url, inputs, tmp_path):
    loaded = factories.reproduction_spec()
    spec = loaded.spec.model_copy(update={"alpha_min": 0.8})
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        factories.store_study(session, replace(loaded, spec=spec), factories.reproduction(), "a8")
    engine.dispose()
    args = ("--original", str(inputs["ws353"]), "--db", database_url, "--bootstrap", "20")
    result = run("--new", "a8", *args, "--quiet", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text())
    new, original = data["new"]["repeatability"], data["original"]["repeatability"]
    assert (new["alpha_min"], original["alpha_min"]) == (0.8, 0.667)  # the CSV: the default
    assert "below alpha_min = 0.800" in new["warning"]
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "each instrument's alpha_min (a8 (new, all judgments) 0.800, " in text
