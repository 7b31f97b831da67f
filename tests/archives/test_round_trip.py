"""A study run on the local MTurk service, written as the requester website's batch-results
file and imported into another store, gives back the same judgments, workers, times and
statuses."""

from __future__ import annotations

import csv
import json

import pytest
from sqlmodel import select

from harness.providers.mturk.crowd import SimulatedWorkers
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Hit, Study
from tests.archives.batch_download import (
    ASSIGNMENT_COLUMNS,
    HIT_COLUMNS,
    batch_rows,
    write_batch_results,
)
from tests.archives.factories import stored_judgments
from tests.factories import migrated_sqlite
from tests.platform.factories import crowd_workers, harness_cli, launch_args, small_spec, truths_of


def _hit_ids_and_assignments(db: str, name: str) -> tuple[list[str], list[tuple]]:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            study = session.exec(select(Study).where(Study.name == name)).one()
            hits = session.exec(select(Hit).where(Hit.study_id == study.id)).all()
            rows = session.exec(
                select(Assignment).where(Assignment.hit_id.in_([h.id for h in hits]))  # type: ignore[union-attr]
            ).all()
            by_hit = {h.id: h.platform_hit_id for h in hits}
            return sorted(str(h.platform_hit_id) for h in hits), sorted(
                (
                    a.platform_assignment_id,
                    by_hit[a.hit_id],
                    a.status,
                    a.submitted_at.replace(microsecond=0, tzinfo=None) if a.submitted_at else None,
                )
                for a in rows
            )
    finally:
        engine.dispose()


CROWD_FORM_PAGE = """{% extends "rating.html" %}
{% block controls %}<crowd-form></crowd-form>{{ super() }}{% endblock %}
"""
"""harness's rating page inside a crowd-html-elements form: MTurk answers such a page with one
``taskAnswers`` JSON array (the local service too), which the website wrote as one column."""


@pytest.mark.slow
@pytest.mark.parametrize("page", ["fields", "crowd-form"])
def test_a_local_mturk_study_written_as_batch_results_imports_back_the_same(
    tmp_path, mturk, http, page
):
    run = migrated_sqlite(tmp_path / "run.db")
    extra = {}
    if page == "crowd-form":
        (tmp_path / "crowd.html").write_text(CROWD_FORM_PAGE, encoding="utf-8")
        extra["template"] = "crowd.html"
    spec = small_spec(tmp_path, items=8, per_hit=2, raters=3, **extra)
    assert harness_cli(*launch_args(spec, mturk.url, run)).exit_code == 0
    loaded = load_spec(spec)
    workers = crowd_workers(loaded, 5)
    report = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http).run()
    assert len(report.submitted) == 12
    assert "12 stored now" in harness_cli("sync", "small", "--db", run).output
    assert harness_cli("review", "small", "--db", run).exit_code == 0
    hit_ids, run_assignments = _hit_ids_and_assignments(run, "small")
    assert len(run_assignments) == 12

    path = tmp_path / "Batch_4242_batch_results.csv"
    assert write_batch_results(batch_rows(mturk.client(), hit_ids), path) == 12
    with path.open(encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    answers = sorted(c for c in header if c.startswith("Answer."))
    assert header == [*HIT_COLUMNS, *ASSIGNMENT_COLUMNS, *answers, "Approve", "Reject"]
    if page == "crowd-form":
        assert answers == ["Answer.taskAnswers"]
        with path.open(encoding="utf-8", newline="") as f:
            first = next(csv.DictReader(f))
        assert (
            json.loads(first["Answer.taskAnswers"])[0]["item-0"] in loaded.items["item_id"].values
        )
    else:
        assert answers[:2] == ["Answer.answered-0", "Answer.answered-1"]
    assert path.read_text(encoding="utf-8").startswith('"HITId","HITTypeId","Title"')

    home = migrated_sqlite(tmp_path / "home.db")
    imported = harness_cli(
        "import",
        "mturk-batch",
        str(path),
        "--spec",
        str(spec),
        "--study",
        "small-mturk",
        "--db",
        home,
    )
    assert imported.exit_code == 0, imported.output
    assert imported.output.startswith(
        "small-mturk: 12 assignments of 5 workers on 4 HITs, 24 judgments stored"
    )
    assert stored_judgments(home, "small-mturk").equals(stored_judgments(run, "small"))
    # the batch keeps MTurk's accept times, which a sync does not ask for
    assert _hit_ids_and_assignments(home, "small-mturk") == (hit_ids, run_assignments)
    assert {a[2] for a in run_assignments} == {"approved"}
