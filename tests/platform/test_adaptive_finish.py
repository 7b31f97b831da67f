"""A finished adaptive study closes itself: when every item has reached its target or its cap,
nobody new starts (MTurk's HITs expire, Prolific's study is stopped, a study link's entry turns
newcomers away), decided once through the store, after a submission or a sync."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from sqlmodel import col, select

from harness.errors import PlatformError
from harness.platform.adaptive_finish import finish_if_done
from harness.platform.registry import provider_for
from harness.providers.mturk.crowd import SimulatedWorkers
from harness.simulate import Crowd
from harness.store import make_engine, session_scope
from harness.store.models import Event, EventKind, Hit, Study, StudyStatus
from harness.store.studies import launched_study
from tests.platform.factories import (
    adaptive_link_study,
    adaptive_mturk_study,
    harness_cli,
    link_crowd,
    truths_of,
)
from tests.web.dashboard.factories import SETTINGS, logged_in

MIX = {"careful": 0.7, "sloppy": 0.3}
FINISHED = "adaptive: every item reached its target or its cap: the study is finished"


def _closing_events(db: str) -> list[EventKind]:
    engine = make_engine(db)
    kinds = (EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED)
    with session_scope(engine) as session:
        found = list(
            session.exec(
                select(Event.kind).where(col(Event.kind).in_(kinds)).order_by(col(Event.id))
            )
        )
    engine.dispose()
    return found


def _status(db: str) -> StudyStatus:
    engine = make_engine(db)
    with session_scope(engine) as session:
        status = session.exec(select(Study.status)).one()
    engine.dispose()
    return StudyStatus(status)


def test_a_link_study_closes_after_the_submission_that_finishes_it(tmp_path):
    from harness.platform.submissions.after_submission import hook

    loaded, db, app, server = adaptive_link_study(
        tmp_path, after_submission=hook(True), dashboard=SETTINGS
    )
    try:
        with requests.Session() as http:
            report = link_crowd(loaded, server.url, http, MIX)
            assert report.submitted and not report.refused
            late = http.get(f"{server.url}/p/small?participant=latecomer")
        assert late.status_code == 410 and "This study is closed" in late.text
        assert _status(db) is StudyStatus.FINISHED
        assert _closing_events(db) == [EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED]
        synced = harness_cli("sync", "small", "--db", db)  # closed already: not again
        assert synced.exit_code == 0 and FINISHED not in synced.output
        status = harness_cli("status", "small", "--db", db).output
        assert "study small on link: finished" in status
        assert "  adaptive: every item reached its target or its cap: finished" in status
        dashboard, _ = logged_in(server.url)
        page = dashboard.get(f"{server.url}/dashboard/study/small").text
        assert "every item reached its target or its cap: nobody new starts" in page
        assert _closing_events(db) == [EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED]
    finally:
        server.stop()
        app.extensions["harness"].close()


class _Unreachable:
    """A provider whose platform does not answer the closing's calls."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def expire(self, platform_id: str) -> None:
        raise PlatformError("the platform did not answer")


def test_a_closing_cut_short_is_finished_by_the_next_call_and_done_once(tmp_path):
    # nothing acts after a submission
    loaded, db, app, server = adaptive_link_study(tmp_path, after_submission=None)
    try:
        with requests.Session() as http:
            link_crowd(loaded, server.url, http, MIX)
            engine = make_engine(db)
            with session_scope(engine) as session:
                running = launched_study(session, "small")
            provider = provider_for(running)
            assert _status(db) is StudyStatus.RUNNING and _closing_events(db) == []
            with pytest.raises(PlatformError):
                finish_if_done(engine, _Unreachable(provider), running)  # type: ignore[arg-type]
            # decided and recorded before the platform was asked: newcomers are turned away
            assert _status(db) is StudyStatus.FINISHED
            assert _closing_events(db) == [EventKind.STUDY_FINISH_INTENT]
            late = http.get(f"{server.url}/p/small?participant=latecomer")
            assert late.status_code == 410
            assert finish_if_done(engine, provider, running) is True
            assert finish_if_done(engine, provider, running) is False
            engine.dispose()
        assert _closing_events(db) == [EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED]
    finally:
        server.stop()
        app.extensions["harness"].close()


def test_an_mturk_study_expires_its_hits_at_the_sync_that_finds_it_done(tmp_path, mturk, http):
    loaded, db, server, app = adaptive_mturk_study(tmp_path, mturk.url)
    workers = Crowd({"careful": 0.7, "sloppy": 0.3}, size=24, seed=4).workers(loaded.scale)
    driver = SimulatedWorkers(mturk.url, workers, truths_of(loaded), loaded.scale, http)
    outputs = []
    try:
        for _ in range(12):
            driver.run()
            synced = harness_cli("sync", "small", "--db", db)
            assert synced.exit_code == 0, synced.output
            outputs.append(synced.output)
            if FINISHED in synced.output:
                break
        fresh = Crowd({"careful": 1}, size=4, seed=9).workers(loaded.scale)
        late = SimulatedWorkers(mturk.url, fresh, truths_of(loaded), loaded.scale, http).run()
    finally:
        server.stop()
        app.extensions["harness"].close()
    assert FINISHED in outputs[-1] and re.search(r"adaptive: posted", outputs[-1]) is None
    assert _status(db) is StudyStatus.FINISHED
    engine = make_engine(db)
    with session_scope(engine) as session:
        hits = len(session.exec(select(Hit)).all())
        expired = session.exec(select(Event).where(Event.kind == EventKind.HIT_EXPIRED)).all()
    engine.dispose()
    assert len(expired) == hits  # every posted HIT
    assert late.submitted == []  # nobody new finds a HIT
    again = harness_cli("sync", "small", "--db", db)
    assert again.exit_code == 0 and FINISHED not in again.output
    assert _closing_events(db) == [EventKind.STUDY_FINISH_INTENT, EventKind.STUDY_FINISHED]
