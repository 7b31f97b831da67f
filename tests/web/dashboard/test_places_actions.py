"""The study page's actions on the platforms with places, on SQLite and PostgreSQL: on
Prolific (the local service, through the real client) each is done on Prolific; on a study
link, approvals, rejections and bonuses are recorded and the page says so. Pausing stops new
participants (Prolific: no place can be reserved; a link: a "paused" page) while those already
working submit; unblocking on Prolific takes the participant off the study's blocklist group."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import requests
from sqlmodel import col, select

from harness.providers.prolific.crowd import ProlificDoor
from harness.simulate import Crowd
from harness.simulate.answering import Answering, DriverReport
from harness.simulate.places_driver import PlacesWorkers, participant_id
from harness.store import make_engine, session_scope
from harness.store.models import Assignment, Hit, Worker
from tests.platform.factories import harness_cli, truths_of
from tests.web.dashboard.factories import (
    STUDY,
    LivePlacesStudy,
    bonus_asked_at_once,
    events,
    flashed,
    logged_in,
    seen_on_page,
)

AUTH = {"Authorization": "Token local"}


@pytest.fixture(params=["prolific-local", "link"])
def places(request: pytest.FixtureRequest, tmp_path: Any, database_url: str) -> Any:
    study = LivePlacesStudy(tmp_path, request.param, database=database_url).start()
    yield study
    study.stop()


def post(http: requests.Session, live: LivePlacesStudy, token: str, action: str, **data: str):
    answer = http.post(
        f"{live.url}/dashboard/study/{STUDY}/{action}", data={"csrf_token": token, **data}
    )
    assert answer.status_code == 200, answer.text
    return answer.text


def on_prolific(live: LivePlacesStudy, path: str) -> Any:
    got = requests.get(f"{live.endpoint}/api/v1/{path}", headers=AUTH, timeout=10)
    got.raise_for_status()
    return got.json()


def worker_of(live: LivePlacesStudy, aid: str) -> str:
    """The participant who submitted assignment ``aid``."""
    engine = make_engine(live.db)
    with session_scope(engine) as session:
        found = session.exec(
            select(Worker.platform_worker_id)
            .join(Assignment, col(Assignment.worker_id) == col(Worker.id))
            .where(Assignment.platform_assignment_id == aid)
        ).one()
    engine.dispose()
    return found


def prolific_study(live: LivePlacesStudy) -> dict[str, Any]:
    [study] = on_prolific(live, "studies/")["results"]
    return dict(study)


def test_approve_reject_bonus_and_raters_are_done_on_prolific_or_recorded_on_a_link(places):
    live = places
    report = live.crowd(size=3)
    first, second, third = report.submitted[:3]
    http, token = logged_in(live.url)
    prolific = live.target == "prolific-local"
    recorded = (
        " Recorded only: the study link pays and tells nobody through harness; the event "
        "log keeps it for you to act on."
    )
    note = "" if prolific else recorded

    approved = post(http, live, token, "approve", assignment=first)
    assert flashed(approved) == f"Approved {first}.{note}"
    feedback = "Every answer was the same."
    rejected = post(http, live, token, "reject", assignment=second, feedback=feedback)
    assert flashed(rejected) == f"Rejected {second}.{note}"
    # four researchers confirm the same bonus at once: it is paid once
    told = bonus_asked_at_once(live.url, 4, assignment=third, amount="0.25", reason="Thanks")
    if prolific:
        paid = f"Paid $0.25 to {third}'s worker ($0.35 with the platform's fee)."
    else:
        paid = f"A $0.25 bonus for {third}'s participant.{recorded}"
    assert told.count(paid) == 1, told
    assert set(told) - {paid} <= {
        f"This $0.25 bonus for {third} was paid already.",
        f"Not done: this $0.25 bonus for {third} is being paid now (another tab, a second "
        "click or another process asked first): reload in a moment to see it paid",
    }, told
    added = flashed(post(http, live, token, "raters", hit="0", count="1"))
    assert added == "HIT 0: 1 more raters."
    worker = worker_of(live, first)
    said = flashed(post(http, live, token, "message", worker=worker, text="Thanks for coming."))
    page = http.get(f"{live.url}/dashboard/study/{STUDY}/worker/{worker}").text
    if prolific:  # Prolific's messages have no subject
        assert said == f"Message sent to {worker}."
        assert 'id="message-worker"' in page and 'name="subject"' not in page
        told = on_prolific(live, f"messages/?user_id={worker}")["results"]
        assert [m["body"] for m in told] == ["Thanks for coming."]
    else:
        why = (
            "a study link knows no address of its participants: write to them the way you "
            "recruited them"
        )
        assert said == f"Not done: no message sent: {why}"
        assert f"No message here: {why}" in page and 'id="message-worker"' not in page

    assert [e.subject for e in events(live.db, "review.approved")] == [first]
    [rejection] = events(live.db, "review.rejected")
    assert (rejection.subject, rejection.payload["feedback"]) == (second, feedback)
    assert [e.payload["amount"] for e in events(live.db, "review.bonus")] == ["0.25"]
    engine = make_engine(live.db)
    with session_scope(engine) as session:
        assert session.exec(select(Hit.max_assignments).where(Hit.index == 0)).one() == 3
    engine.dispose()
    if prolific:  # Prolific did each of them
        listed = on_prolific(live, f"submissions/?study={prolific_study(live)['id']}")
        submissions = {s["id"]: s for s in listed["results"]}
        assert submissions[first]["status"] == "APPROVED"
        assert submissions[second]["status"] == "REJECTED"
        assert on_prolific(live, f"submissions/{third}/")["bonus_payments"] == [25]
        assert prolific_study(live)["total_available_places"] == 9  # 4 HITs x 2 raters, + 1


def test_unblocking_lets_a_participant_in_again_and_pausing_stops_only_new_ones(places):
    live = places
    http, token = logged_in(live.url)
    blocked = participant_id("BLOCKED1")
    assert flashed(post(http, live, token, "block", worker=blocked)) == f"Blocked {blocked}."
    assert can_start(live, "BLOCKED1") == "refused: blocked"
    unblocked = flashed(post(http, live, token, "unblock", worker=blocked))
    if live.target == "prolific-local":
        assert unblocked == (
            f"Unblocked {blocked}. On Prolific a participant takes part in a study once: they "
            "can start it only if they had not submitted to it."
        )
    else:
        assert unblocked == f"Unblocked {blocked}."
    assert can_start(live, "BLOCKED1") == "started"  # now holds a place: working when paused

    before = seen_on_page(http, live.url)  # a tab read before the pause
    page = post(http, live, token, "pause", seen=before)
    says = (
        "Prolific stops showing the study: nobody new can reserve a place. Participants "
        "who reserved one before may still start, and everyone working can finish and "
        "submit."
        if live.target == "prolific-local"
        else "the study's link turns new "
        "participants away with a page saying the study is paused; participants already "
        "working can finish and submit."
    )
    assert flashed(page) == f"Paused: {says}"
    assert re.search(r'id="fig-state" class="state-paused">paused</b>', page)
    assert 'id="resume-button"' in page and 'id="pause-button"' not in page
    assert flashed(post(http, live, token, "pause")) == "The study was paused already."
    assert can_start(live, "NEWCOMER") == "refused: paused"
    assert finishes(live, "BLOCKED1")  # the one already working submits while paused
    if live.target == "prolific-local":
        assert prolific_study(live)["status"] == "PAUSED"

    stale = flashed(post(http, live, token, "resume", seen=before))  # the old tab, later
    assert re.fullmatch(
        r"Not done: The study was paused at \d\d:\d\d:\d\d \(dashboard: paused by hand\), "
        r"after this page was read: nothing was done again\. Reload the page to see it, and "
        r"ask again if you still want it\.",
        stale,
    ), stale
    resumed = post(http, live, token, "resume", seen=seen_on_page(http, live.url))
    assert flashed(resumed) == "Resumed: new workers can start the study again."
    assert 'id="pause-button"' in resumed
    assert flashed(post(http, live, token, "resume")) == "The study was running already."
    assert can_start(live, "NEWCOMER") == "started"
    if live.target == "prolific-local":
        assert prolific_study(live)["status"] == "ACTIVE"
    assert [e.payload["reason"] for e in events(live.db, "study.paused")] == [
        "dashboard: paused by hand"
    ]
    assert len(events(live.db, "study.resumed")) == 1
    assert len(events(live.db, "worker.unblocked")) == 1
    status = harness_cli("status", STUDY, "--db", live.db)
    assert f"study {STUDY} on {live.target}: running" in status.output


def can_start(live: LivePlacesStudy, name: str) -> str:
    """Whether the participant ``name`` (their id: `participant_id`) can start the study now:
    "started" (they hold a place: on Prolific a submission, in harness a slot), or "refused:
    why"."""
    pid = participant_id(name)
    if live.target == "prolific-local":
        base = live.endpoint
        study = prolific_study(live)
        listed = requests.get(
            f"{base}/participant/studies", params={"participant_id": pid}, timeout=10
        ).json()["results"]
        joined = requests.post(
            f"{base}/participant/studies/{study['id']}/join",
            data={"participant_id": pid},
            timeout=10,
        )
        if joined.status_code == 403:
            assert "on the study's blocklist" in joined.text and listed == []
            return "refused: blocked"
        if joined.status_code == 409 and "paused" in joined.text:
            assert listed == []
            return "refused: paused"
        assert joined.status_code == 201, joined.text
        assert [s["id"] for s in listed] == [study["id"]]
        entry = str(joined.json()["study_url"])
    else:
        entry = f"{live.url}/p/{STUDY}?participant={pid}"
    # the browser they come back with (`finishes`): a session belongs to the one it started in
    arrived = live.http.get(entry, allow_redirects=False, timeout=10)
    if arrived.status_code == 503:
        assert "This study is paused: nobody new can start it now." in arrived.text
        assert arrived.headers["Retry-After"] == "600"
        return "refused: paused"
    if arrived.status_code == 200 and "You cannot take part in this study any more" in arrived.text:
        return "refused: blocked"
    assert arrived.status_code == 303, arrived.text
    live.entries[name] = entry  # their way back in: Prolific's study URL with the three ids
    return "started"


class _Again:
    """A door back to the entry a participant started from."""

    def __init__(self, live: LivePlacesStudy, name: str) -> None:
        self.live, self.name = live, name

    def entry(self, http: Any, participant: str) -> str | None:
        return self.live.entries[self.name]

    def finish(self, http: Any, participant: str, next_url: str) -> bool:
        if self.live.target == "prolific-local":
            assert self.live.endpoint is not None
            return ProlificDoor(self.live.endpoint).finish(http, participant, next_url)
        return bool(http.get(f"{self.live.url}{next_url}").status_code == 200)


def finishes(live: LivePlacesStudy, name: str) -> bool:
    """The participant ``name`` goes back to their task, answers and submits it; whether the
    task server and the platform took it."""
    [worker] = Crowd({"careful": 1}, size=1, seed=4).workers(live.loaded.scale)
    truths = truths_of(live.loaded)
    driver = PlacesWorkers(_Again(live, name), [worker], truths, live.loaded.scale, live.http)
    answering = Answering(truths, live.loaded.scale)
    report = DriverReport()
    named = _Named(worker, name)
    done = driver.work(named, np.random.default_rng(1), report, answering)
    assert not report.refused, report.refused
    return bool(done)


class _Named:
    """A simulated worker who answers as ``worker`` under another name."""

    def __init__(self, worker: Any, name: str) -> None:
        self._worker, self.worker_id = worker, name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._worker, name)
