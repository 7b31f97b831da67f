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
    posted_at_once,
    seen_on_page,
)


def post(http, base, token, action, **data):
    return http.post(f"{base}/dashboard/study/{STUDY}/{action}", data={"csrf_token": token, **data})


@pytest.mark.slow
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
    feed = re.search(r'<table id="events">.*?</table>', paid.text, re.S)
    assert feed and "harness-" not in feed.group(0)  # no token: the assignment and worker
    assert re.search(rf"<td>review.bonus</td><td>{third} \(worker AW\d+\)</td>", feed.group(0))
    state = r'id="fig-state"[^>]*>([^<]+)</b><span id="fig-state-says">([^<]+)'
    words = re.search(state, paid.text)
    assert words and words.groups() == (
        "complete",
        "every item has its 3 raters: nobody more is needed",
    )
    assert '<b id="fig-eta">done</b>' in paid.text
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
            "Not done: bonus amount: expected an amount such as 0.50 (digits, at most two after "
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


def max_assignments(db: str, index: int) -> int:
    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return session.exec(select(Hit.max_assignments).where(Hit.index == index)).one()
    finally:
        engine.dispose()


AGAIN = re.compile(
    r"^Not done: (Raters were (being )?added to this HIT|The study was (being )?expired) at "
    r"\d\d:\d\d:\d\d( \(dashboard: [^)]*\))?, after this page "
    r"was read: nothing was done again\. Reload the page to see it, and ask again if you still "
    r"want it\.$"
)


@pytest.mark.slow
def test_expiring_and_adding_raters_are_done_once_per_page(live):
    """A second click, a second tab posting at the same moment, or a stale tab is told what
    happened since its page was read; a page read afterwards may ask again."""
    live.crowd(rounds=1)
    http, token = logged_in(live.url)
    seen = seen_on_page(http, live.url)
    told = posted_at_once(live.url, "raters", 3, hit="0", count="2", seen=seen)
    assert told.count("HIT 0: 2 more raters.") == 1, told
    assert all(AGAIN.match(t) for t in told if t != "HIT 0: 2 more raters."), told
    stale = flashed(post(http, live.url, token, "raters", hit="0", count="2", seen=seen).text)
    assert AGAIN.match(stale), stale
    assert max_assignments(live.db, 0) == 5  # 3 + 2, once
    other = flashed(post(http, live.url, token, "raters", hit="1", count="1", seen=seen).text)
    assert other == "HIT 1: 1 more raters."  # another HIT's form is another action
    fresh = seen_on_page(http, live.url)
    again = flashed(post(http, live.url, token, "raters", hit="0", count="1", seen=fresh).text)
    assert again == "HIT 0: 1 more raters." and max_assignments(live.db, 0) == 6

    seen = seen_on_page(http, live.url)
    told = posted_at_once(live.url, "expire", 3, confirm=STUDY, seen=seen)
    done = "Expired 4 HITs: nobody new can start; what is submitted stays."
    assert told.count(done) == 1, told
    assert all(AGAIN.match(t) for t in told if t != done), told
    stale = flashed(post(http, live.url, token, "expire", confirm=STUDY, seen=seen).text)
    assert AGAIN.match(stale), stale
    page = http.get(f"{live.url}/dashboard/study/{STUDY}").text
    assert 'id="expired-note"' in page and "Expire the study</button>" not in page
    fresh = seen_on_page(http, live.url)
    late = flashed(post(http, live.url, token, "expire", confirm=STUDY, seen=fresh).text)
    assert late == "The study was expired already: nothing done."
    assert len(events(live.db, "hit.expire.intent")) == 4
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
    row = re.search(rf'<tr id="worker-{blocked[0]}".*?</tr>', carried.text, re.S)
    assert row and "blocked</span> by a person (dashboard)" in row.group(0)  # who asked
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


@pytest.fixture
def many_decisions(tmp_path):
    """Nothing carries out screening's decisions; a straight-liner is flagged for a block (low
    variance) and an assignment of theirs for rejection (correlation below 0.99)."""
    screening = (
        "{low_variance: {action: block}, low_correlation: {action: reject, threshold: 0.99}}"
    )
    study = LiveStudy(tmp_path, apply_decisions=False, screening=screening).start()
    yield study
    study.stop()


def pending_by_worker(db: str) -> dict[str, list[ScreeningDecision]]:
    from harness.store.decisions import pending_decisions
    from harness.store.models import Worker

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            names = {w.id: w.platform_worker_id for w in session.exec(select(Worker))}
            found: dict[str, list[ScreeningDecision]] = {}
            for d in pending_decisions(session, 1):
                found.setdefault(names[d.worker_id], []).append(d)
            return found
    finally:
        engine.dispose()


def test_all_of_a_workers_pending_decisions_are_overruled_or_carried_out_at_once(
    many_decisions,
):
    live = many_decisions
    live.crowd()
    pending = pending_by_worker(live.db)
    ranked = sorted(pending, key=lambda w: -len(pending[w]))
    overruled, carried = ranked[:2]
    assert len(pending[overruled]) >= 2, pending  # several decisions about one worker
    http, token = logged_in(live.url)
    page = http.get(f"{live.url}/dashboard/study/{STUDY}").text
    row = re.search(rf'<tr id="pending-of-{overruled}">.*?</tr>', page, re.S)
    assert row and f"Overrule all {len(pending[overruled])}</button>" in row.group(0)
    assert re.search(r"reject [A-Z0-9]{10,} \(low_correlation\)", row.group(0))  # named

    done = post(http, live.url, token, f"worker/{overruled}/decisions/overrule", reason="known")
    said = flashed(done.text)
    assert said.startswith(f"Overruled {len(pending[overruled])} of {overruled}'s pending"), said
    assert overruled not in pending_by_worker(live.db)
    again = post(http, live.url, token, f"worker/{overruled}/decisions/overrule", reason="x")
    assert flashed(again.text) == f"{overruled} has no pending screening decision: nothing changed."
    reasons = {e.payload["reason"] for e in events(live.db, "screening.overruled")}
    assert reasons == {"dashboard: known"}

    count = len(pending[carried])
    done = post(http, live.url, token, f"worker/{carried}/decisions/accept")
    said = flashed(done.text)
    assert said.startswith(f"Carried out {count} of {carried}'s pending decisions ("), said
    assert carried not in pending_by_worker(live.db)
    applied = {e.payload["decision"] for e in events(live.db, "screening.applied")}
    assert applied == {d.id for d in pending[carried]}


def submitted_of(db: str) -> dict[str, list[str]]:
    """Submissions awaiting review, by worker."""
    from harness.store.models import AssignmentStatus, Worker

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            rows = session.exec(
                select(Worker.platform_worker_id, Assignment.platform_assignment_id)
                .join(Assignment, Assignment.worker_id == Worker.id)
                .where(Assignment.status == AssignmentStatus.SUBMITTED)
            ).all()
    finally:
        engine.dispose()
    found: dict[str, list[str]] = {}
    for worker, aid in rows:
        found.setdefault(worker, []).append(aid)
    return found


def test_many_submissions_are_approved_or_rejected_at_once(live):
    """Every unflagged submission approved with one button; all of a flagged worker's
    rejected from their page, however many there are."""
    live.crowd()
    blocked = {e.subject for e in events(live.db, "worker.blocked")}
    assert blocked, "screening flagged nobody: the test shows nothing"
    waiting = submitted_of(live.db)
    unflagged = sorted(a for w, aids in waiting.items() if w not in blocked for a in aids)
    http, token = logged_in(live.url)
    page = http.get(f"{live.url}/dashboard/study/{STUDY}").text
    assert f"Approve all {len(unflagged)} unflagged</button>" in page
    none = post(http, live.url, token, "review-many", verdict="reject", feedback="x")
    assert flashed(none.text) == (
        "Not done: no submission is ticked: tick the ones to approve or reject"
    )

    done = post(http, live.url, token, "review-many", verdict="approve", unflagged="1")
    assert flashed(done.text) == f"Approved {len(unflagged)} of {len(unflagged)} submissions."
    client = live.mturk.client()
    states = {a: client.get_assignment(AssignmentId=a)["Assignment"] for a in unflagged}
    assert {s["AssignmentStatus"] for s in states.values()} == {"Approved"}
    assert set(submitted_of(live.db)) == blocked  # the flagged workers' wait for a person

    spammer = sorted(blocked)[0]
    theirs = sorted(submitted_of(live.db)[spammer])
    worker_page = f"/dashboard/study/{STUDY}/worker/{spammer}"
    page = http.get(f"{live.url}{worker_page}").text
    ticked = re.findall(r'name="assignment" value="([^"]+)" form="worker-review" checked', page)
    assert sorted(ticked) == theirs and 'id="unblock-worker"' in page
    answer = http.post(
        f"{live.url}/dashboard/study/{STUDY}/review-many",
        data={
            "csrf_token": token,
            "verdict": "reject",
            "feedback": "Every answer was the same.",
            "back": worker_page,
            "assignment": ticked,
        },
    )
    assert answer.url.endswith(worker_page)  # back on the worker's page
    assert flashed(answer.text) == f"Rejected {len(theirs)} of {len(theirs)} submissions."
    assert spammer not in submitted_of(live.db)
    assert {
        client.get_assignment(AssignmentId=a)["Assignment"]["AssignmentStatus"] for a in theirs
    } == {"Rejected"}


@pytest.mark.slow
def test_a_bonus_is_paid_after_approval_from_the_workers_page(live):
    report = live.crowd(rounds=1)
    http, token = logged_in(live.url)
    aid = report.submitted[0]
    assert "Approved" in post(http, live.url, token, "approve", assignment=aid).text
    engine = make_engine(live.db)
    with session_scope(engine) as session:
        from harness.store.models import Worker

        worker = session.exec(
            select(Worker.platform_worker_id)
            .join(Assignment, Assignment.worker_id == Worker.id)
            .where(Assignment.platform_assignment_id == aid)
        ).one()
    engine.dispose()
    here = f"/dashboard/study/{STUDY}/worker/{worker}"
    page = http.get(f"{live.url}{here}").text
    assert re.search(rf'name="assignment" value="{aid}"><input type="hidden" name="back"', page)
    fields = {"assignment": aid, "amount": "0.40", "reason": "Thorough", "back": here}
    asked = post(http, live.url, token, "bonus", **fields)
    assert "It costs <b>$0.48</b> in all" in asked.text
    paid = post(http, live.url, token, "bonus", confirm_total="0.48", **fields)
    assert paid.url.endswith(here)
    assert flashed(paid.text) == f"Paid $0.40 to {aid}'s worker ($0.48 with the platform's fee)."
    bonuses = live.mturk.client().list_bonus_payments(AssignmentId=aid)["BonusPayments"]
    assert [b["BonusAmount"] for b in bonuses] == ["0.40"]


def test_an_action_returns_only_to_a_page_of_its_own_study():
    from harness.web.dashboard.actions import back_within

    study = "/dashboard/study/small"
    assert back_within(f"{study}/worker/W1", study) == f"{study}/worker/W1"
    assert back_within(f"{study}/submissions?page=2", study) == f"{study}/submissions?page=2"
    assert back_within(study, study) == study
    assert back_within("/dashboard/study/smaller/worker/W1", study) == study
    assert back_within("https://elsewhere.example/", study) == study
    assert back_within("", study) == study
