"""A person's actions on the study page go through the platform's review functions: the
platform does them, the store and the event log record them with a ``dashboard:`` reason,
and the page shows who decided."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, DecisionState, Event, Hit, ScreeningDecision
from tests.platform.factories import harness_cli
from tests.web.dashboard.factories import (
    STUDY,
    LiveStudy,
    bonus_asked_at_once,
    events,
    flashed,
    logged_in,
)


def post(http, base, token, action, **data):
    return http.post(f"{base}/dashboard/study/{STUDY}/{action}", data={"csrf_token": token, **data})


def test_blocking_approving_rejecting_and_paying_from_the_page_act_on_the_platform(
    tmp_path, database_url
):
    """On SQLite and PostgreSQL."""
    live = LiveStudy(tmp_path, database=database_url).start()
    try:
        act_from_the_page(live)
    finally:
        live.stop()


def act_from_the_page(live: LiveStudy) -> None:
    report = live.crowd()
    http, token = logged_in(live.url)
    client = live.mturk.client()
    careful = "AW001"
    done = post(http, live.url, token, "block", worker=careful)
    assert done.status_code == 200 and f"Blocked {careful}." in done.text
    blocked = events(live.db, "worker.blocked")
    assert [(e.subject, e.payload["reason"]) for e in blocked if e.subject == careful] == [
        (careful, "dashboard: blocked by hand")
    ]
    assert re.search(r"<tr><td>identical</td><td class=\"num\">\d+</td>", done.text)  # controls
    row = re.search(rf'<tr id="worker-{careful}".*?</tr>', done.text, re.S)
    assert row and "blocked</span> by a person (dashboard)" in row.group(0)
    refused = live.mturk.post(f"/worker/hits/{hit_id(client)}/accept", workerId=careful)
    assert refused.status_code != 200  # the platform keeps the blocked worker out

    first, second, third = report.submitted[:3]
    assert "Approved" in post(http, live.url, token, "approve", assignment=first).text
    rejected = post(http, live.url, token, "reject", assignment=second, feedback="Blank answers.")
    assert f"Rejected {second}." in rejected.text
    asked = post(http, live.url, token, "bonus", assignment=third, amount="0.25", reason="Thanks")
    assert "It costs <b>$0.30</b> in all, with the platform's fee." in asked.text
    assert events(live.db, "review.bonus.intent") == []  # nothing paid before it is confirmed
    paid = post(
        http,
        live.url,
        token,
        "bonus",
        assignment=third,
        amount="0.25",
        reason="Thanks",
        confirm_total="0.30",
    )
    assert flashed(paid.text) == f"Paid $0.25 to {third}'s worker ($0.30 with the platform's fee)."
    # 4 HITs x 3 assignments x $0.10 with MTurk's 20%, and the bonus's 20%
    fees = re.findall(r"fees[^<]{0,40}", paid.text)
    assert "of which the platform's fees $0.29" in paid.text, fees
    told = bonus_asked_at_once(live.url, 4, assignment=third, amount="0.25", reason="Thanks")
    assert told == [f"This $0.25 bonus for {third} was paid already."] * 4
    state = {aid: client.get_assignment(AssignmentId=aid)["Assignment"] for aid in (first, second)}
    assert state[first]["AssignmentStatus"] == "Approved"
    assert state[second]["AssignmentStatus"] == "Rejected"
    assert state[second]["RequesterFeedback"] == "Blank answers."
    assert [e.payload["reason"] for e in events(live.db, "review.approved")] == [
        "dashboard: approved by hand"
    ]
    assert [e.payload["amount"] for e in events(live.db, "review.bonus")] == ["0.25"]


def test_a_refused_action_says_why_and_changes_nothing(live):
    report = live.crowd()
    http, token = logged_in(live.url)
    empty = post(http, live.url, token, "reject", assignment=report.submitted[0], feedback="")
    assert "Not done: the form&#39;s &#39;feedback&#39; field is empty: fill it in" in empty.text
    for typed in ("1e3", "-1", "0.001", "1,000"):
        odd = post(
            http, live.url, token, "bonus", assignment=report.submitted[0], amount=typed, reason="x"
        )
        assert flashed(odd.text) == (
            "Not done: bonus amount: expected dollars such as 0.50 (digits, at most two after "
            f"the point), got '{typed}'"
        )
    high = post(
        http, live.url, token, "bonus", assignment=report.submitted[0], amount="1.01", reason="x"
    )
    assert flashed(high.text) == (
        "Not done: bonus amount: $1.01 is over the ceiling of $1.00 per bonus (the spec's "
        "hit.max_bonus, or 10 times the reward)"
    )
    unconfirmed = post(
        http,
        live.url,
        token,
        "bonus",
        assignment=report.submitted[0],
        amount="0.50",
        reason="x",
        confirm_total="0.10",  # a total the page did not show
    )
    assert "It costs <b>$0.60</b> in all" in unconfirmed.text
    unknown = post(http, live.url, token, "approve", assignment="NOPE")
    assert "study &#39;small&#39; has no assignment &#39;NOPE&#39;" in unknown.text
    unexpired = post(http, live.url, token, "expire", confirm="")
    assert "type the study&#39;s name (small) to expire it" in unexpired.text
    assert events(live.db, "review.rejected") == [] and events(live.db, "hit.expired") == []
    assert events(live.db, "review.bonus.intent") == []


def test_expiring_and_adding_raters_from_the_page(live):
    live.crowd(rounds=1)
    http, token = logged_in(live.url)
    added = post(http, live.url, token, "raters", hit="0", count="2")
    assert "HIT 0: 2 more raters." in added.text
    engine = make_engine(live.db)
    with session_scope(engine) as session:
        hit = session.exec(select(Hit).where(Hit.index == 0)).one()
        assert hit.max_assignments == 5
    engine.dispose()
    expired = post(http, live.url, token, "expire", confirm=STUDY)
    assert "Expired 4 HITs" in expired.text
    assert len(events(live.db, "hit.expired")) == 4


@pytest.fixture
def reviewed_later(tmp_path):
    """Live screening stores its decisions; nothing carries them out until someone does."""
    study = LiveStudy(tmp_path, apply_decisions=False).start()
    yield study
    study.stop()


def test_a_screening_decision_is_carried_out_or_overruled_by_a_person(reviewed_later):
    live = reviewed_later
    live.crowd()
    engine = make_engine(live.db)
    with session_scope(engine) as session:
        pending = [d.id for d in session.exec(select(ScreeningDecision)) if d.flag]
    assert len(pending) == 2  # the two straight-liners, to block
    http, token = logged_in(live.url)
    carried = post(http, live.url, token, f"decision/{pending[0]}/accept")
    assert f"Decision {pending[0]} carried out: 1 action(s)." in carried.text
    overruled = post(http, live.url, token, f"decision/{pending[1]}/overrule", reason="known")
    assert f"Decision {pending[1]} overruled" in overruled.text
    again = post(http, live.url, token, f"decision/{pending[1]}/accept")
    assert "nothing done now" in again.text
    with session_scope(engine) as session:
        states = {d.id: d.state for d in session.exec(select(ScreeningDecision)) if d.flag}
        blocked = [
            e.subject for e in session.exec(select(Event).where(Event.kind == "worker.blocked"))
        ]
        approved = session.exec(select(Assignment)).all()
    engine.dispose()
    assert states == {pending[0]: DecisionState.APPLIED, pending[1]: DecisionState.OVERRULED}
    assert len(blocked) == 1
    [log] = events(live.db, "screening.overruled")
    assert log.payload["reason"] == "dashboard: known"
    assert approved


def hit_id(client) -> str:
    return client.list_hits()["HITs"][0]["HITId"]


def test_a_blocked_worker_unblocked_from_the_page_may_work_again_and_be_blocked_again(live):
    live.crowd(rounds=1)
    http, token = logged_in(live.url)
    client = live.mturk.client()
    worker = "AW001"
    assert "Blocked AW001." in post(http, live.url, token, "block", worker=worker).text
    hit = hit_id(client)
    assert live.mturk.post(f"/worker/hits/{hit}/accept", workerId=worker).status_code != 200
    unblocked = post(http, live.url, token, "unblock", worker=worker, reason="a mistake")
    assert "Unblocked AW001." in unblocked.text
    row = re.search(rf'<tr id="worker-{worker}".*?</tr>', unblocked.text, re.S)
    assert row and "Block</button>" in row.group(0)
    assert "AW001 was not blocked." in post(http, live.url, token, "unblock", worker=worker).text
    free = [h["HITId"] for h in client.list_hits()["HITs"]]
    assert any(
        live.mturk.post(f"/worker/hits/{h}/accept", workerId=worker).status_code == 200
        for h in free
    )
    assert "Blocked AW001." in post(http, live.url, token, "block", worker=worker).text
    kinds = [e.payload["reason"] for e in events(live.db, "worker.unblocked")]
    assert kinds == ["dashboard: a mistake"]
    status = harness_cli("status", STUDY, "--db", live.db)
    assert "screening: 3 workers blocked" in status.output  # AW001 again, both straight-liners


def test_an_mturk_study_shows_no_pause_button_and_a_pause_asked_anyway_says_why(live):
    http, token = logged_in(live.url)
    page = http.get(f"{live.url}/dashboard/study/{STUDY}").text
    assert 'id="pause-button"' not in page
    assert "No pause here: MTurk has no pause: its API can only expire a HIT" in page
    refused = post(http, live.url, token, "pause")
    assert "Not done: MTurk has no pause: its API can only expire a HIT, which stops new " in (
        refused.text
    )
    assert events(live.db, "study.pause.intent") == [] and events(live.db, "study.paused") == []
    assert 'id="fig-state" class="state-running">running</b>' in refused.text
