"""The dashboard's cache of a study with arms, on both stores: the judgments read labelled
with their arm, each arm's progress and alpha, and each worker's arm, against what the
participants posted and the store holds."""

from __future__ import annotations

import re

import pytest

from harness.stats.alpha import krippendorff_alpha
from harness.store import find_study, make_engine, session_scope, study_judgments
from harness.web.dashboard.watch import Watcher
from tests.providers.link.arm_study import work_arms_study


@pytest.fixture
def worked(store_copy):
    """The worked study with arms (done once per backend; each test reads its own copy) and
    what the participants posted."""
    return store_copy("worked-arms", work_arms_study)


def test_a_snapshot_shows_each_arm_and_each_workers_arm(worked):
    database_url, posted = worked
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            study = find_study(session, "small")
            assert study.id is not None
            table = study_judgments(session, study.id)
        watcher = Watcher(engine, background=False)
        snapshot = watcher.snapshot(study.id)
    finally:
        engine.dispose()
    hashes = dict(zip(table["worker_id"], table["instrument_hash"], strict=False))
    by_arm = {arm: hashes[w] for w, arm in posted.arms.items()}
    assert [a.arm for a in snapshot.arms] == ["long", "short"]
    for progress in snapshot.arms:
        rows = table[table["instrument_hash"] == by_arm[progress.arm]]
        assert progress.judgments == len(rows)
        assert progress.workers == rows["worker_id"].nunique() == 2
        # 8 items and 2 identical pairs (one per HIT), each rated by 2 workers
        assert (progress.items, progress.at_target, progress.raters_min) == (10, 10, 2)
    assert {w["worker_id"]: w["arm"] for w in snapshot.workers} == posted.arms
    latest = snapshot.latest
    assert latest is not None and latest.everyone.alpha is None  # never the arms pooled
    for arm in latest.arms:
        rows = table[(table["instrument_hash"] == by_arm[arm.arm]) & (table["role"] == "item")]
        assert arm.everyone.alpha == pytest.approx(krippendorff_alpha(rows, "interval"))
    assert snapshot.arm_alpha("long") is latest.arms[0]
    rows = watcher.rows(study.id)
    assert len(rows) == len(table)
    assert dict(zip(rows["worker_id"], rows["arm"], strict=True)) == posted.arms


def test_the_control_items_table_is_per_arm_and_never_pools_the_arms(worked):
    database_url, posted = worked
    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            study = find_study(session, "small")
            assert study.id is not None
            table = study_judgments(session, study.id)
        snapshot = Watcher(engine, background=False).snapshot(study.id)
    finally:
        engine.dispose()
    arm_of = table["worker_id"].map(posted.arms)
    assert [c.arm for c in snapshot.controls] == sorted(
        [c.arm for c in snapshot.controls], key=["long", "short"].index
    )  # the arms in the spec's order
    shown = {(c.arm, c.role): c for c in snapshot.controls}
    expected = table[table["role"] != "item"].groupby([arm_of, "role"]).size().to_dict()
    assert {k: c.showings for k, c in shown.items()} == expected
    for arm in ("long", "short"):
        assert {r for a, r in shown if a == arm} == {"identical", "repeat", "gold"}
        assert shown[(arm, "identical")].workers == 2  # its own two workers, not all four
    # the long arm's careful workers answer every control as expected, the short arm's do not
    assert shown[("long", "identical")].error == 0.0 and shown[("long", "repeat")].error == 0.0
    assert shown[("short", "identical")].error > 0 and shown[("short", "repeat")].error > 0
    page = _study_page(database_url)
    table_html = page[page.index('<table id="controls">') :]
    table_html = table_html[: table_html.index("</table>")]
    assert "<th>arm</th>" in table_html
    rows = re.findall(r'<tr data-arm="(\w+)"><td>\w+</td><td>(\w+)</td>', table_html)
    assert rows == [(c.arm, c.role) for c in snapshot.controls]


def _study_page(db: str) -> str:
    """The dashboard's page of the study ``small``, logged in."""
    from harness.web.dashboard import create_dashboard_app
    from tests.web.dashboard.factories import SETTINGS
    from tests.web.dashboard.test_access import log_in

    app = create_dashboard_app(db, SETTINGS)
    try:
        client = app.test_client()
        assert log_in(client).status_code == 303
        page = client.get("/dashboard/study/small")
        assert page.status_code == 200
        return page.get_data(as_text=True)
    finally:
        app.extensions["harness.web.dashboard"].close()
