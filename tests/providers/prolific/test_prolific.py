"""Prolific through the provider's client and plain HTTP against the local service: one study
with places, Prolific's pagination and error shapes, faults retried where safe, review, and
bonuses paid exactly once even when the paying process is killed (SIGKILL)."""

from __future__ import annotations

import signal
import subprocess
import sys
from decimal import Decimal

import pytest
import requests
from sqlmodel import select

from harness.providers.prolific.client import ProlificClient, ProlificError
from harness.providers.prolific.hooks import signature, verified
from harness.providers.prolific.provider import ProlificProvider
from harness.store import make_engine, session_scope
from harness.store.events import EventKind
from harness.store.models import Event, Hit
from harness.store.submissions import accept
from tests.providers.prolific.conftest import faults, post_to

AUTH = {"Authorization": "Token local"}


def _client(url: str) -> ProlificClient:
    return ProlificClient(url, "local", sleep=lambda _s: None)


def test_the_launch_opens_one_study_whose_places_are_every_slot(prolific, launched):
    _spec, _db, output = launched
    assert "small: 4 HITs on prolific-local (4 posted now" in output
    assert "cost: $1.68 = $1.20 rewards + $0.48 fees" in output  # 8 x (0.15 + 0.05 + VAT 0.01)
    studies = requests.get(f"{prolific.url}/api/v1/studies/", headers=AUTH, timeout=5).json()
    (study,) = studies["results"]
    assert study["status"] == "ACTIVE" and study["total_available_places"] == 8
    assert study["completion_codes"][0]["actions"] == [{"action": "MANUALLY_REVIEW"}]
    assert study["external_study_url"] == (
        "http://tasks.test/p/small?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}"
        "&SESSION_ID={{%SESSION_ID%}}"
    )
    assert study["filters"][-1]["filter_id"] == "participant_group_blocklist"
    assert studies["meta"] == {"count": 1}


def test_the_requester_api_wants_a_token_and_answers_in_prolifics_error_shape(prolific):
    bare = requests.get(f"{prolific.url}/api/v1/users/me/", timeout=5)
    assert bare.status_code == 401
    assert bare.json() == {
        "error": {
            "status": 401,
            "error_code": 140100,
            "title": "Unauthorized",
            "detail": "Authentication credentials were not provided.",
        }
    }
    missing = requests.post(f"{prolific.url}/api/v1/studies/", json={}, headers=AUTH, timeout=5)
    assert missing.status_code == 400
    assert missing.json()["error"]["detail"]["reward"] == ["This field is required."]


def test_lists_are_paged_with_links_and_the_client_follows_them(prolific):
    client = _client(prolific.url)
    for i in range(5):
        client.call("POST", "participant-groups/", safe=False, json={"name": f"g{i}"})
    first = requests.get(
        f"{prolific.url}/api/v1/participant-groups/?page_size=2", headers=AUTH, timeout=5
    ).json()
    assert first["meta"] == {"count": 5} and len(first["results"]) == 2
    assert first["_links"]["next"]["href"].endswith("?page_size=2&page=2")
    assert first["_links"]["previous"]["href"] is None
    assert [g["name"] for g in client.pages("participant-groups/")] == [f"g{i}" for i in range(5)]


def test_rate_limits_are_waited_out_and_a_5xx_is_retried_only_when_safe(prolific):
    client = _client(prolific.url)
    faults(prolific.url, rate_limit_share=0.5, retry_after=0, seed=3)
    assert all(client.call("GET", "users/me/", safe=True)["id"] for _ in range(10))
    faults(prolific.url, rate_limit_share=0, unavailable_share=1)
    with pytest.raises(ProlificError, match="Prolific answered 503 to POST participant-groups/"):
        client.call("POST", "participant-groups/", safe=False, json={"name": "x"})
    faults(prolific.url, unavailable_share=0)
    assert client.call("GET", "participant-groups/", safe=True)["meta"] == {"count": 0}


def _participant_done(prolific, db, pid):
    """A participant joins the study on the local service, and harness records the session
    (as the allocator does); the session id."""
    study = requests.get(
        f"{prolific.url}/participant/studies",
        params={"participant_id": pid, "country": "United States"},
        timeout=5,
    ).json()["results"][0]
    joined = requests.post(
        f"{prolific.url}/participant/studies/{study['id']}/join",
        data={"participant_id": pid},
        timeout=5,
    ).json()
    sub = joined["submission_id"]
    engine = make_engine(db)
    with session_scope(engine) as session:
        hit = session.exec(select(Hit).where(Hit.index == 0)).one()
        accept(session, hit, sub, pid)
    engine.dispose()
    return sub


BONUS_SCRIPT = """
import sys
from decimal import Decimal
from sqlmodel import select
from harness.platform.bonuses import pay_bonus
from harness.platform.registry import provider_for
from harness.store import launched_study, make_engine, session_scope
from harness.store.models import Assignment
engine = make_engine(sys.argv[1])
with session_scope(engine) as session:
    study = launched_study(session, "small")
    assignment = session.exec(select(Assignment)).one()
    print(pay_bonus(session, provider_for(study), study, assignment, Decimal("0.50"), "extra"))
"""


def _events(db, kind):
    import sqlalchemy as sa

    engine = make_engine(db)
    try:
        with session_scope(engine) as session:
            return len(session.exec(select(Event).where(Event.kind == kind)).all())
    except sa.exc.OperationalError:
        return 0  # the store is not created yet
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kill_at", "call"),
    [
        (EventKind.BONUS_INTENT, "submissions/bonus-payments/"),
        (EventKind.BONUS_PAY_INTENT, "bulk-bonus-payments/[^/]+/pay/"),
    ],
)
def test_a_bonus_is_paid_once_when_the_paying_process_is_killed(prolific, launched, kill_at, call):
    """The service holds the call the intent ``kill_at`` announces while the process is
    killed, then carries it out: killed mid-call whatever the machine's speed."""
    _spec, db, _output = launched
    sub = _participant_done(prolific, db, "5fparticipant000000000001")
    held = prolific.hold(post_to(call))
    process = subprocess.Popen([sys.executable, "-c", BONUS_SCRIPT, db])
    held.kill_sender(process)
    assert process.returncode == -signal.SIGKILL
    assert _events(db, kill_at) == 1
    held.release()  # the call in flight reaches the service
    rerun = subprocess.run(
        [sys.executable, "-c", BONUS_SCRIPT, db], capture_output=True, text=True, timeout=300
    )
    assert rerun.returncode == 0, rerun.stderr
    again = subprocess.run(
        [sys.executable, "-c", BONUS_SCRIPT, db], capture_output=True, text=True, timeout=300
    )
    assert again.stdout.strip() == "False"
    paid = requests.get(
        f"{prolific.url}/api/v1/submissions/{sub}/", headers=AUTH, timeout=60
    ).json()["bonus_payments"]
    assert paid == [50]  # paid exactly once
    assert _events(db, EventKind.BONUS_PAID) == 1


def test_review_rejects_with_a_category_and_a_long_enough_message(prolific, launched):
    _spec, db, _output = launched
    sub = _participant_done(prolific, db, "5fparticipant000000000002")
    requests.get(
        f"{prolific.url}/submissions/complete",
        timeout=5,
        params={"cc": "WRONG", "participant_id": "5fparticipant000000000002"},
    )
    provider = ProlificProvider(_client(prolific.url), "prolific-local")
    with pytest.raises(ProlificError, match="only a submission awaiting review"):
        provider.reject(sub, "Too quick.")
    study = provider.client.call("GET", "studies/", safe=True)["results"][0]
    code = study["completion_codes"][0]["code"]
    who = "5fparticipant000000000002"
    done = requests.get(
        f"{prolific.url}/submissions/complete",
        timeout=5,
        params={"cc": code, "participant_id": who},
    )
    assert done.json()["status"] == "AWAITING REVIEW"
    provider.reject(sub, "Too quick.")
    got = provider.client.call("GET", f"submissions/{sub}/", safe=True)
    assert got["status"] == "REJECTED"
    provider.reject(sub, "Too quick.")  # idempotent, as Prolific documents
    assert provider.submission(sub).state.value == "rejected"
    assert provider.balance() < Decimal("10000.00")


def test_a_hook_delivery_is_verified_by_its_signature():
    body = b'{"event_type": "submission.status.change", "resource_id": "abc"}'
    good = signature("secret", "1700000000", body)
    assert verified("secret", "1700000000", body, good, now=1700000010)
    assert not verified("secret", "1700000000", body + b" ", good, now=1700000010)
    assert not verified("secret", "1700000000", body, good, now=1700009999)  # a replay


@pytest.mark.slow
def test_a_launch_killed_while_opening_the_study_resumes_to_exactly_one_study(prolific, tmp_path):
    from tests.platform.factories import harness_cli
    from tests.providers.prolific.conftest import prolific_spec

    spec = prolific_spec(tmp_path)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    args = [
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--endpoint-url",
        prolific.url,
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
    ]
    held = prolific.hold(post_to("studies/"))  # opening the study: in flight when killed
    process = subprocess.Popen([sys.executable, "-m", "harness", *args])
    held.kill_sender(process)
    assert _events(db, EventKind.PLACES_OPEN_INTENT) == 1
    held.release()  # the call in flight reaches the service
    resumed = harness_cli(*args)
    assert resumed.exit_code == 0, resumed.output
    assert "small: 4 HITs on prolific-local" in resumed.output
    studies = requests.get(f"{prolific.url}/api/v1/studies/", headers=AUTH, timeout=5).json()
    assert studies["meta"] == {"count": 1}
    assert studies["results"][0]["status"] == "ACTIVE"
    assert studies["results"][0]["total_available_places"] == 8
