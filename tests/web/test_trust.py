"""Workers cannot forge or take over assignments, and pages cannot be turned against them
(issue 21, holes 1-3 and 5), on both stores, with MTurk as harness's local MTurk service.

A study's HIT is posted on the local service; workers accept there, open the task page with
MTurk's parameters, post their answers, and complete the assignment at MTurk's
externalSubmit. What counts is asked of MTurk (GetAssignment, ListAssignmentsForHIT) by the
rechecks after the post, not taken from the page's URL.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlencode, urlsplit

import pytest
from sqlmodel import func, select

from harness.platform.reconcile import SyncHooks
from harness.platform.registry import platform_named
from harness.platform.status import ReportedStudy, study_report
from harness.platform.sync import sync_study
from harness.platform.verification import Verifier, verify
from harness.render.answers import encode_answers
from harness.render.pages import external_question
from harness.store import session_scope
from harness.store.models import (
    Assignment,
    Hit,
    Judgment,
    QuarantinedSubmission,
    QuarantineState,
    Study,
    StudyPlatform,
    Worker,
)
from harness.store.studies import launched
from harness.web.tasks import NOT_YOURS
from harness.web.tokens import token_in_page
from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params
from tests.web.factories import on_platform, plan_study, write_task_spec
from tests.web.test_task_server import answers

VICTIM, ATTACKER = "AVICTIM1", "AATTACKER1"


@pytest.fixture(scope="module")
def mturk(tmp_path_factory):
    """One local MTurk service for the module: each test posts a HIT of its own."""
    service = LocalMTurk(tmp_path_factory.mktemp("mturk") / "mturk.sqlite").start()
    yield service
    service.stop()


class Posted:
    """A study whose HIT 0 is posted on the local MTurk service, served by the task server
    with the real verifier (rechecks run by hand: ``recheck_all``)."""

    def __init__(self, engine, make_app, mturk, tmp_path):
        self.engine, self.mturk = engine, mturk
        self.study = plan_study(engine, write_task_spec(tmp_path, "rating"))
        on_platform(engine, self.study.name, "local", mturk.url)
        question = external_question(
            "http://127.0.0.1:9", study_name=self.study.name, plan=self.study.plans[0]
        )
        self.requester = mturk.client()
        self.hit_id = self.requester.create_hit(**hit_params(Question=question))["HIT"]["HITId"]
        with session_scope(engine) as session:
            hit = session.exec(select(Hit)).one()
            hit.platform_hit_id = self.hit_id
            session.add(hit)
        self.app = make_app(verifier=Verifier())
        self.app.extensions["harness.trust"].rechecks.close()  # the tests recheck by hand
        self.client = self.app.test_client()

    def accept(self, worker):
        return self.mturk.accept(self.hit_id, worker)["AssignmentId"]

    def query(self, assignment, worker, **extra):
        params = {
            "assignmentId": assignment,
            "hitId": self.hit_id,
            "workerId": worker,
            "turkSubmitTo": self.mturk.url,
            **extra,
        }
        return urlencode(params)

    def open(self, assignment, worker, **extra):
        query = self.query(assignment, worker, **extra)
        return self.client.get(f"/hit/{self.study.key(0)}?{query}")

    def post(self, assignment, worker, *, token=None, value=6.0, headers=None, **extra):
        """Post answers as ``worker``'s page for ``assignment`` (its token unless given)."""
        if token is None:
            token = token_in_page(self.open(assignment, worker).get_data(as_text=True))
        data = encode_answers(answers(self.study, value, worker=worker))
        data.update(
            {
                "assignmentId": assignment,
                "workerId": worker,
                "hitId": self.hit_id,
                "pageToken": token,
                **extra,
            }
        )
        return self.client.post(
            f"/hit/{self.study.key(0)}/submit", data=data, headers=headers or {}
        )

    def complete_on_mturk(self, assignment, worker, value=6.0):
        """What the page does after harness has the answers: complete the assignment there."""
        data = encode_answers(answers(self.study, value, worker=worker))
        response = self.mturk.post("/mturk/externalSubmit", assignmentId=assignment, **data)
        assert response.status_code == 200, response.text

    def recheck_all(self):
        rechecks = self.app.extensions["harness.trust"].rechecks
        with session_scope(self.engine) as session:
            ids = [r.id for r in session.exec(select(QuarantinedSubmission))]
        return [rechecks.recheck(i) for i in ids]

    def counted(self):
        """(assignment id, worker id, judgments) of every assignment that counts."""
        with session_scope(self.engine) as session:
            rows = session.exec(
                select(Assignment, Worker).join(Worker, Worker.id == Assignment.worker_id)
            ).all()
            return sorted(
                (
                    a.platform_assignment_id,
                    w.platform_worker_id,
                    session.exec(
                        select(func.count())
                        .select_from(Judgment)
                        .where(Judgment.assignment_id == a.id)
                    ).one(),
                )
                for a, w in rows
            )

    def quarantined(self):
        with session_scope(self.engine) as session:
            return sorted(
                (q.platform_assignment_id, q.platform_worker_id, q.state)
                for q in session.exec(select(QuarantinedSubmission))
            )


def count_calls(client, monkeypatch) -> Counter:
    """The MTurk client's verification calls from now on, counted by operation."""
    calls: Counter = Counter()

    def counted(name):
        asked = getattr(client, name)

        def call(**params):
            calls.update([name])
            return asked(**params)

        return call

    for name in ("list_assignments_for_hit", "get_assignment"):
        monkeypatch.setattr(client, name, counted(name))
    return calls


@pytest.fixture
def posted(engine, make_app, mturk, tmp_path):
    return Posted(engine, make_app, mturk, tmp_path)


# --- hole 1: forged assignments --------------------------------------------------------------


def test_a_forged_assignment_is_quarantined_and_never_counts(posted):
    forged = [posted.post(f"FORGED{i}", "AX") for i in range(5)]
    assert [r.status_code for r in forged] == [200] * 5
    assert all(r.json["verified"] is False for r in forged)
    posted.recheck_all()  # MTurk does not know these assignments
    with session_scope(posted.engine) as session:
        running = launched(session, session.exec(select(Study)).one())
    provider = Verifier().provider(running.platform, running.target)
    sync_study(posted.engine, provider, running, SyncHooks())  # nor does sync's settling
    assert posted.counted() == []
    with session_scope(posted.engine) as session:
        study = session.exec(select(Study)).one()
        running = ReportedStudy.of(launched(session, study))
        report = study_report(session, platform_named("mturk"), running)
    assert report.quarantined == {"pending": 5, "refused": 0, "verified": 0}
    assert report.assignments == {} and report.judgments == 0
    assert report.lines()[-1] == (
        "  quarantined submissions (not counted): 5 awaiting the platform, 0 refused "
        "(someone else's assignment), 0 verified since"
    )


# --- hole 2: hijacking and impersonation -----------------------------------------------------


def test_a_hijacked_link_stores_nothing_and_the_victim_still_submits(posted):
    assignment = posted.accept(VICTIM)
    # the attacker opens the victim's link with their own worker id, first, and submits
    assert posted.open(assignment, ATTACKER).status_code == 200
    assert posted.post(assignment, ATTACKER, value=1.0).status_code == 200
    # the victim is not locked out
    assert posted.open(assignment, VICTIM).status_code == 200
    mine = posted.post(assignment, VICTIM, value=7.0)
    assert mine.status_code == 200 and mine.json["created"] is True
    posted.complete_on_mturk(assignment, VICTIM, value=7.0)
    posted.recheck_all()
    n = len(posted.study.plans[0].showings)
    assert posted.counted() == [(assignment, VICTIM, n)]
    assert posted.quarantined() == [
        (assignment, ATTACKER, QuarantineState.REFUSED),
        (assignment, VICTIM, QuarantineState.VERIFIED),
    ]
    with session_scope(posted.engine) as session:
        values = set(session.exec(select(Judgment.value)).all())
    assert values == {7.0}  # the victim's answers, not the attacker's


def test_posting_with_the_victims_worker_id_under_ones_own_page_is_refused(posted):
    assignment = posted.accept(VICTIM)
    own = token_in_page(posted.open(assignment, ATTACKER).get_data(as_text=True))
    refused = posted.post(assignment, VICTIM, token=own)
    assert refused.status_code == 403
    assert "token is missing or does not match" in refused.json["errors"][0]
    assert posted.quarantined() == [] and posted.counted() == []


def test_ones_own_assignment_posted_as_the_victim_is_refused_once_mturk_answers(posted):
    mine = posted.accept(ATTACKER)
    victims = posted.accept(VICTIM)
    assert posted.post(mine, VICTIM, value=1.0).status_code == 200  # MTurk cannot say yet
    posted.complete_on_mturk(mine, ATTACKER, value=1.0)
    # now MTurk says the assignment is the attacker's: a post in the victim's name is refused
    again = posted.post(mine, VICTIM, value=1.0)
    assert again.status_code in (200, 403)
    posted.recheck_all()
    assert (mine, VICTIM, QuarantineState.REFUSED) in posted.quarantined()
    assert all(worker != VICTIM for _, worker, _ in posted.counted())
    # and the victim's own assignment is untouched
    assert posted.post(victims, VICTIM, value=7.0).json["created"] is True


def test_a_post_after_mturk_has_the_assignment_is_quarantined_then_refused_or_counted(posted):
    """The post does not ask MTurk (its page completes the assignment there only afterwards):
    even a claim MTurk could refuse at once is quarantined, and the recheck refuses it; the
    real worker's counts once the recheck verifies it."""
    assignment = posted.accept(VICTIM)
    posted.complete_on_mturk(assignment, VICTIM)
    token = token_in_page(posted.open(assignment, ATTACKER).get_data(as_text=True))
    claimed = posted.post(assignment, ATTACKER, token=token, value=1.0)
    assert claimed.status_code == 200 and claimed.json["verified"] is False
    mine = posted.post(assignment, VICTIM)
    assert mine.status_code == 200 and mine.json["verified"] is False
    assert posted.counted() == []
    posted.recheck_all()
    assert posted.quarantined() == [
        (assignment, ATTACKER, QuarantineState.REFUSED),
        (assignment, VICTIM, QuarantineState.VERIFIED),
    ]
    assert posted.counted() == [(assignment, VICTIM, len(posted.study.plans[0].showings))]
    # now the store knows whose it is: the attacker is refused at once, nothing written
    again = posted.post(assignment, ATTACKER, token=token, value=1.0)
    assert again.status_code == 403
    assert again.json["errors"][0] == NOT_YOURS.format(assignment=assignment)


def test_a_submission_asks_mturk_nothing_and_its_recheck_asks_once(posted, monkeypatch):
    """The post stores (quarantines) without a platform call; the recheck asks."""
    assignment = posted.accept(VICTIM)
    verifier = posted.app.extensions["harness.trust"].verifier
    with session_scope(posted.engine) as session:
        provider = verifier.provider(session.exec(select(StudyPlatform)).one(), "local")
    calls = count_calls(provider.client, monkeypatch)
    response = posted.post(assignment, VICTIM)
    assert response.status_code == 200 and response.json["created"] is True
    assert calls == {}
    posted.complete_on_mturk(assignment, VICTIM)
    posted.recheck_all()
    assert calls == {"get_assignment": 1}
    assert posted.counted() == [(assignment, VICTIM, len(posted.study.plans[0].showings))]


def test_a_wrong_hit_id_in_the_post_is_refused(posted):
    assignment = posted.accept(VICTIM)
    response = posted.post(assignment, VICTIM, hitId="SOMEOTHERHIT")
    assert response.status_code == 400
    assert "These answers name HIT SOMEOTHERHIT" in response.json["errors"][0]
    assert posted.quarantined() == []


def test_due_rechecks_of_one_hit_ask_mturk_once_and_settle_as_one_at_a_time(posted, monkeypatch):
    """Several quarantined submissions of one HIT are verified with one listing of it;
    only those the HIT's list lacks are asked about one by one (GetAssignment), so each is
    settled as its own recheck would have settled it."""
    done, waiting, taken = posted.accept("AW1"), posted.accept("AW2"), posted.accept("AW3")
    assert posted.post(done, "AW1", value=7.0).status_code == 200
    assert posted.post(waiting, "AW2").status_code == 200  # not completed on MTurk yet
    assert posted.post(taken, ATTACKER, value=1.0).status_code == 200  # AW3's assignment
    assert posted.post("FORGED1", "AX").status_code == 200  # MTurk never heard of it
    posted.complete_on_mturk(done, "AW1", value=7.0)
    posted.complete_on_mturk(taken, "AW3", value=1.0)
    with session_scope(posted.engine) as session:
        rows = session.exec(select(QuarantinedSubmission).order_by(QuarantinedSubmission.id)).all()
        ids = [r.id for r in rows]
        claims = [(r.platform_assignment_id, r.platform_worker_id) for r in rows]
    assert len(ids) == 4
    verifier = posted.app.extensions["harness.trust"].verifier
    with session_scope(posted.engine) as session:
        provider = verifier.provider(session.exec(select(StudyPlatform)).one(), "local")
    one_at_a_time = [verify(provider, a, w, posted.hit_id) for a, w in claims]
    calls = count_calls(provider.client, monkeypatch)
    rechecks = posted.app.extensions["harness.trust"].rechecks
    with session_scope(posted.engine) as session:
        hit = session.exec(select(Hit)).one()
        study = session.exec(select(Study)).one()
        at_once = verifier.asking_many(session, study, hit, claims)()
    assert [(v.verdict, v.reason, v.final) for v in at_once] == [
        (v.verdict, v.reason, v.final) for v in one_at_a_time
    ]
    # one listing (one page: a page shorter than MaxResults is the last, although MTurk
    # gives a NextToken with it too), then AW2's and FORGED1's assignments asked about on
    # their own
    assert calls == {"list_assignments_for_hit": 1, "get_assignment": 2}
    calls.clear()
    settled = rechecks.recheck_many(ids)
    assert calls == {"list_assignments_for_hit": 1, "get_assignment": 2}
    states = [
        QuarantineState.VERIFIED,
        QuarantineState.PENDING,
        QuarantineState.REFUSED,
        QuarantineState.PENDING,
    ]
    assert {i: s.state for i, s in settled.items()} == dict(zip(ids, states, strict=True))
    assert posted.counted() == [(done, "AW1", len(posted.study.plans[0].showings))]
    assert rechecks.recheck_many(ids) == {  # settled once: asked no more
        ids[0]: None,
        ids[1]: settled[ids[1]],
        ids[2]: None,
        ids[3]: settled[ids[3]],
    }


# --- hole 3: turkSubmitTo and the page's policy ---------------------------------------------


HOSTILE_SUBMIT_TO = [
    "javascript:alert(document.domain)//",
    "https://evil.example",
    "JAVASCRIPT:alert(1)",
    "https://www.mturk.com",  # production's site, for a study on the local service
    "https://www.mturk.com.evil.example",
    "{mturk}.evil.example",
    "{mturk}/mturk/externalSubmit",
    "{mturk}@evil.example",
    "https://x@{host}",
    "{mturk}?x=1",
    "{mturk}#x",
    "{mturk}\\@evil.example",
    "//{host}",
]
"""turkSubmitTo values for a study on the local service (``{mturk}``: its address, ``{host}``:
its host and port) that the task server refuses and an MTurk-hosted page's script ignores
(tests/web/test_trust_browser.py)."""


@pytest.mark.parametrize("submit_to", HOSTILE_SUBMIT_TO)
def test_a_turk_submit_to_other_than_the_platforms_site_is_refused(posted, submit_to):
    assignment = posted.accept(VICTIM)
    target = submit_to.format(mturk=posted.mturk.url, host=urlsplit(posted.mturk.url).netloc)
    response = posted.open(assignment, VICTIM, turkSubmitTo=target)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "its turkSubmitTo is not MTurk&#39;s address" in html
    assert "javascript:" not in html.lower() and "evil.example" not in html


def test_the_page_completes_only_at_the_platform_and_runs_only_its_own_scripts(posted):
    assignment = posted.accept(VICTIM)
    response = posted.open(assignment, VICTIM)
    assert response.status_code == 200
    policy = response.headers["Content-Security-Policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f"frame-ancestors 'self' {posted.mturk.url}" in policy
    assert f"form-action 'self' {posted.mturk.url}" in policy
    assert "default-src 'none'" in policy and "base-uri 'none'" in policy
    html = response.get_data(as_text=True)
    assert html.count("<script") == html.count(f'<script nonce="{nonce}">') == 2
    assert f'"turkSubmitTo": "{posted.mturk.url}"' in html
    assert response.headers["X-Content-Type-Options"] == "nosniff"


# --- hole 5: cross-site requests -------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "https://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}],
)
def test_a_cross_site_form_post_is_refused(posted, headers):
    assignment = posted.accept(VICTIM)
    response = posted.post(assignment, VICTIM, headers=headers)
    assert response.status_code == 403
    assert response.json["errors"] == [
        "This submission came from another website and was refused; nothing was stored."
    ]
    assert posted.quarantined() == []


def test_a_same_origin_post_is_accepted(posted):
    assignment = posted.accept(VICTIM)
    response = posted.post(
        assignment, VICTIM, headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    )
    assert response.status_code == 200, response.json


def test_sync_settles_what_the_task_server_could_not_verify(posted):
    assignment = posted.accept(VICTIM)
    posted.post(assignment, ATTACKER, value=1.0)
    posted.post(assignment, VICTIM, value=7.0)
    posted.complete_on_mturk(assignment, VICTIM, value=7.0)  # no recheck ran: sync settles
    with session_scope(posted.engine) as session:
        running = launched(session, session.exec(select(Study)).one())
    provider = Verifier().provider(running.platform, running.target)
    report = sync_study(posted.engine, provider, running, SyncHooks())
    assert (report.stored, report.recovered) == (1, 0)  # the quarantined answers, now counted
    assert posted.counted() == [(assignment, VICTIM, len(posted.study.plans[0].showings))]
    assert posted.quarantined() == [
        (assignment, ATTACKER, QuarantineState.REFUSED),
        (assignment, VICTIM, QuarantineState.VERIFIED),
    ]
    again = sync_study(posted.engine, provider, running, SyncHooks())
    assert again.stored == 0


def test_answers_posted_first_with_the_victims_whole_link_never_count(posted):
    """The link itself (both ids) is what an attacker may have: what counts is what the
    worker completed on MTurk, which only the worker can do."""
    assignment = posted.accept(VICTIM)
    assert posted.post(assignment, VICTIM, value=1.0).status_code == 200  # the attacker, first
    posted.post(assignment, VICTIM, value=7.0)  # the victim: "already recorded"
    posted.complete_on_mturk(assignment, VICTIM, value=7.0)
    posted.recheck_all()
    assert posted.quarantined() == [(assignment, VICTIM, QuarantineState.REFUSED)]
    assert posted.counted() == []  # the rechecks store nothing that MTurk's copy contradicts
    with session_scope(posted.engine) as session:
        running = launched(session, session.exec(select(Study)).one())
    provider = Verifier().provider(running.platform, running.target)
    hooks = SyncHooks.of(provider, posted.study.instrument)
    report = sync_study(posted.engine, provider, running, hooks)
    assert (report.stored, report.recovered) == (1, 1)  # MTurk's copy: the victim's answers
    with session_scope(posted.engine) as session:
        assert set(session.exec(select(Judgment.value)).all()) == {7.0}


def test_origins_compare_as_browsers_do():
    from harness.web.security import origin_of

    assert origin_of("HTTPS://WWW.MTurk.com:443/") == "https://www.mturk.com"
    assert origin_of("http://127.0.0.1:80") == "http://127.0.0.1"
    assert origin_of("http://[::1]:8765/x") == "http://[::1]:8765"
    for bad in (
        "javascript:alert(1)",
        "//evil.example",
        "https://u:p@host",
        "http://a b",
        "data:text/html,x",
        "https://host:99999",
    ):
        assert origin_of(bad) is None, bad
