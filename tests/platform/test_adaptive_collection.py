"""Adaptive collection on a launched study: a simulated crowd takes a study link whose spec
says ``adaptive:``; after every item's floor of raters, new HITs hold the items still least
certain, each item stops at the target (or its cap), and the study ends when all have."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from sqlmodel import col, select

from harness.platform.adaptive import content_items, finished, precision_now, rule_of
from harness.platform.registry import platform_of_target
from harness.providers.mturk.crowd import SimulatedWorkers
from harness.simulate import Crowd
from harness.simulate.crowds import run_crowd
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import Event, EventKind, Hit, Judgment, Study, StudyStatus
from tests.factories import migrated_sqlite
from tests.platform.factories import (
    ADAPTIVE,
    adaptive_link_study,
    adaptive_mturk_study,
    harness_cli,
    launch_args,
    link_crowd,
    small_spec,
    truths_of,
)
from tests.providers.prolific.conftest import prolific_spec
from tests.serving import ServedApp, until_rechecked
from tests.web.dashboard.factories import SETTINGS, logged_in


@pytest.fixture
def link_study(tmp_path: Any) -> Any:
    loaded, db, app, server = adaptive_link_study(tmp_path, dashboard=SETTINGS)
    yield loaded, db, server.url
    server.stop()
    app.extensions["harness"].close()


def test_a_link_study_collects_until_every_item_reaches_its_target_or_cap(link_study):
    loaded, db, url = link_study
    rule = rule_of(loaded.spec)
    assert rule is not None
    with requests.Session() as http:
        report = link_crowd(loaded, url, http, {"careful": 0.7, "sloppy": 0.3})
        assert not report.refused, report.refused
        late = http.get(f"{url}/p/small?participant=latecomer")
        assert "There is no work left in this study" in late.text
    engine = make_engine(db)
    with session_scope(engine) as session:
        study = session.exec(select(Study)).one()
        items = content_items(session, study.instrument_id)
        precision = precision_now(session, study.id, items, rule)
        hits = session.exec(select(Hit).order_by(Hit.index)).all()
        composed = session.exec(select(Event).where(Event.kind == EventKind.HIT_COMPOSED)).all()
    engine.dispose()
    assert finished(precision, rule)
    n, half = precision["n"], precision["half_width"]
    assert n.min() >= rule.floor and n.max() <= rule.cap
    assert ((half <= rule.half_width) | (n == rule.cap)).all()
    assert (n > rule.floor).any()  # some items needed more than the floor
    assert (n < rule.cap).any()  # and some stopped at the target before the cap
    assert len(hits) == 3 + len(composed) and len(composed) > 0  # 3 planned, the rest composed
    assert all(h.max_assignments == 1 and len(h.items) <= 2 for h in hits[3:])
    assert len(report.submitted) == sum(h.max_assignments for h in hits)


def test_the_dashboard_shows_items_precision_over_time_and_what_is_left(link_study):
    loaded, _db, url = link_study
    http, _ = logged_in(url)
    study_page = http.get(f"{url}/dashboard/study/small")
    assert 'href="/dashboard/study/small/precision"' in study_page.text
    page = http.get(f"{url}/dashboard/study/small/precision")
    assert page.status_code == 200, page.text
    assert '<b id="precision-at-target">0 of 6</b>' in page.text  # nothing collected yet
    # no sd yet: each item is projected at its cap, 6 x 10 values, 2 to a HIT at $0.10
    assert '<b id="precision-needed">60 values</b>about 30 HITs, $3.00 in rewards' in page.text
    link_crowd(loaded, url, http, {"careful": 1})
    page = http.get(f"{url}/dashboard/study/small/precision")
    assert '<b id="precision-at-target">6 of 6</b>' in page.text
    assert '<b id="precision-needed">0 values</b>' in page.text
    shares = re.findall(r'<td class="num">(\d+)%</td>', page.text)
    assert shares[0] == "0" and shares[-1] == "100" and len(shares) > 2
    # every item has its floor of raters, which does not make an adaptive study complete
    study_page = http.get(f"{url}/dashboard/study/small").text
    assert "collecting adaptively" in study_page and "nobody more is needed" not in study_page


def test_an_mturk_study_gets_hits_of_the_items_short_at_each_sync(tmp_path, mturk, http):
    loaded, db, server, app = adaptive_mturk_study(tmp_path, mturk.url)
    rule = rule_of(loaded.spec)
    assert rule is not None
    workers = Crowd({"careful": 0.7, "sloppy": 0.3}, size=24, seed=4).workers(loaded.scale)
    driver = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http)
    posted, returned = [], []
    try:
        for _ in range(12):  # work, sync (which posts the next HITs), until nothing is posted
            report = driver.run()
            assert report.refused == []
            returned += report.returned
            synced = harness_cli("sync", "small", "--db", db)
            assert synced.exit_code == 0, synced.output
            found = re.search(r"adaptive: posted (\d+) HITs", synced.output)
            if found is None:
                break
            posted.append(int(found[1]))
    finally:
        server.stop()
        app.extensions["harness"].close()
    assert posted and all(n <= 3 for n in posted)  # 6 items, 2 to a HIT
    engine = make_engine(db)
    with session_scope(engine) as session:
        study = session.exec(select(Study)).one()
        precision = precision_now(
            session, study.id, content_items(session, study.instrument_id), rule
        )
        hits = session.exec(select(Hit).order_by(Hit.index)).all()
        roles = set(session.exec(select(Judgment.role)).all())
    engine.dispose()
    assert finished(precision, rule)
    n, half = precision["n"], precision["half_width"]
    assert n.min() >= rule.floor and n.max() <= rule.cap
    assert ((half <= rule.half_width) | (n == rule.cap)).all()
    assert len(hits) == 3 + sum(posted) and all(h.platform_hit_id for h in hits)
    # the same workers come first for each new HIT: the page asked those who had rated one of
    # its items to return it, so no worker's second rating of an item was taken
    assert returned and roles == {"item"}


def test_sync_composes_no_more_hits_than_the_budget_covers(tmp_path, mturk, http):
    db = migrated_sqlite(tmp_path / "h.db")
    # 3 planned HITs of 3 assignments: $0.90 + $0.18 fees; a composed HIT of one: $0.12
    spec = small_spec(tmp_path, items=6, per_hit=2, raters=3, adaptive=ADAPTIVE, budget="'1.40'")
    launched = harness_cli(*launch_args(spec, mturk.url, db))
    assert launched.exit_code == 0, launched.output
    loaded = load_spec(spec)
    workers = Crowd({"sloppy": 1}, size=12, seed=4).workers(loaded.scale)
    driver = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http)
    lines = []
    for _ in range(3):
        driver.run()
        lines.append(harness_cli("sync", "small", "--db", db).output)
    assert "adaptive: posted 2 HITs" in lines[0]
    assert not any("adaptive: posted" in line for line in lines[1:])
    status = harness_cli("status", "small", "--db", db)
    assert "committed $1.32, spent $0.00 (budget $1.40, left $0.08)" in status.output
    assert "raters per item (floor 3)" in status.output and "items at the floor" in status.output
    assert "  adaptive: items get raters past the floor" in status.output


@pytest.fixture
def prolific_study(tmp_path: Any) -> Any:
    from harness.platform.submissions.after_submission import hook
    from harness.providers.prolific.local_service import Settings
    from harness.providers.prolific.local_service import create_app as prolific_app
    from harness.web import create_app

    prolific = prolific_app(Settings(db_path=tmp_path / "prolific.sqlite"))
    served_prolific = ServedApp(prolific).start()
    db = migrated_sqlite(tmp_path / "h.db")
    app = create_app(db, after_submission=hook(True))
    server = ServedApp(app).start()
    spec = prolific_spec(tmp_path, items=6, per_hit=2, raters=3, adaptive=ADAPTIVE)
    launched = harness_cli(
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--endpoint-url",
        served_prolific.url,
        "--db",
        db,
        "--public-url",
        server.url,
    )
    assert launched.exit_code == 0, launched.output
    yield load_spec(spec), db, app, server.url, served_prolific.url
    server.stop()
    app.extensions["harness"].close()
    served_prolific.stop()
    prolific.extensions["prolific_local"].close()


@pytest.mark.slow
def test_a_prolific_study_gets_the_places_its_hits_need_and_is_stopped_when_done(prolific_study):
    loaded, db, app, url, endpoint = prolific_study
    rule = rule_of(loaded.spec)
    assert rule is not None
    workers = Crowd({"careful": 0.7, "sloppy": 0.3}, size=60, seed=4).workers(loaded.scale)
    platform = platform_of_target("prolific-local")
    rounds = []
    with requests.Session() as http:
        for _ in range(8):  # participants take the places there are; sync adds places
            report = run_crowd(
                platform, endpoint, url, "small", workers, truths_of(loaded), loaded.scale, http
            )
            until_rechecked(app, 30.0)
            rounds.append(len(report.submitted))
            synced = harness_cli("sync", "small", "--db", db)
            assert synced.exit_code == 0, synced.output
            if not report.submitted:
                break
    assert rounds[0] == 9 and rounds[-1] == 0 and sum(rounds) > 9  # 3 HITs x 3, then more
    engine = make_engine(db)
    with session_scope(engine) as session:
        study = session.exec(select(Study)).one()
        items = content_items(session, study.instrument_id)
        precision = precision_now(session, study.id, items, rule)
        hits = session.exec(select(Hit).order_by(Hit.index)).all()
        kinds = (EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED)
        closing = session.exec(select(Event).where(col(Event.kind).in_(kinds))).all()
    engine.dispose()
    assert finished(precision, rule)
    n = precision["n"]
    assert n.min() >= rule.floor and n.max() <= rule.cap
    # the submission that finished it closed it: Prolific's study was stopped, once
    assert study.status is StudyStatus.FINISHED
    ref = str(hits[0].platform_hit_id).rsplit("#", 1)[0]
    there = requests.get(
        f"{endpoint}/api/v1/studies/{ref}/", headers={"Authorization": "Token local"}, timeout=5
    )
    assert there.json()["status"] == "AWAITING REVIEW"
    assert [e.kind for e in closing] == [EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED]


def test_an_unpaid_link_study_with_a_budget_is_not_limited_by_it(tmp_path):
    """A lab's own participants, paid nothing: HITs cost nothing, so the budget limits none."""
    from harness.platform.adaptive import affordable_hits
    from harness.store.studies import launched_study

    db = migrated_sqlite(tmp_path / "h.db")
    spec = small_spec(
        tmp_path,
        items=6,
        per_hit=2,
        raters=3,
        hosting="external",
        adaptive=ADAPTIVE,
        reward="0",
        budget="'1.00'",
    )
    launched = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://t.test"
    )
    assert launched.exit_code == 0, launched.output
    with session_scope(make_engine(db)) as session:
        assert affordable_hits(session, launched_study(session, "small")) is None
    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output
