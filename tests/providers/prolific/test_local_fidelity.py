"""The local Prolific service where a researcher would notice a difference from Prolific:
unknown filters, draft edits, a full study awaiting review, bonuses paid asynchronously."""

from __future__ import annotations

from typing import Any

import requests

from harness.providers.prolific.local_service import Settings, create_app
from tests.providers.prolific.test_bad_input import refused, study_body
from tests.serving import ServedApp

AUTH = {"Authorization": "Token local"}


def api(url: str, method: str, path: str, **kwargs: Any) -> requests.Response:
    return requests.request(method, f"{url}/api/v1/{path}", headers=AUTH, timeout=5, **kwargs)


def _published(url: str, **changes: Any) -> str:
    sid = str(api(url, "POST", "studies/", json=study_body(**changes)).json()["id"])
    api(url, "POST", f"studies/{sid}/transition/", json={"action": "PUBLISH"}).raise_for_status()
    return sid


def _join(url: str, sid: str, pid: str) -> str:
    joined = requests.post(
        f"{url}/participant/studies/{sid}/join", data={"participant_id": pid}, timeout=5
    )
    assert joined.status_code == 201, joined.text
    return str(joined.json()["submission_id"])


def _complete(url: str, pid: str) -> None:
    requests.get(
        f"{url}/submissions/complete", params={"cc": "C0DE", "participant_id": pid}, timeout=5
    ).raise_for_status()


def _status(url: str, sid: str) -> str:
    return str(api(url, "GET", f"studies/{sid}/").json()["status"])


def test_a_filter_prolific_does_not_have_is_refused_by_name(prolific):
    extra = {"filter_id": "handedness", "selected_values": ["1"]}
    made = api(prolific.url, "POST", "studies/", json=study_body(filters=[extra]))  # never ignored
    assert refused(made) == {
        "filters": ["Unknown filter_id 'handedness': see GET /api/v1/filters/."]
    }


def test_a_draft_can_be_edited_and_a_published_study_only_in_part(prolific):
    sid = api(prolific.url, "POST", "studies/", json=study_body()).json()["id"]
    edited = api(prolific.url, "PATCH", f"studies/{sid}/", json={"reward": 150, "name": "New"})
    assert (edited.json()["reward"], edited.json()["name"]) == (150, "New")
    wrong = api(prolific.url, "PATCH", f"studies/{sid}/", json={"reward": 0})
    assert refused(wrong) == {"reward": ["Must be a whole number from 1 to 100000000."]}
    api(prolific.url, "POST", f"studies/{sid}/transition/", json={"action": "PUBLISH"})
    late = api(prolific.url, "PATCH", f"studies/{sid}/", json={"reward": 200})
    assert refused(late) == (
        f"Study {sid} is ACTIVE: only total_available_places, internal_name, description can "
        "be changed once it is published."
    )


def test_a_full_study_awaits_review_and_a_freed_place_reopens_it(prolific):
    sid = _published(prolific.url, total_available_places=2)
    first = _join(prolific.url, sid, "P1")
    _join(prolific.url, sid, "P2")
    _complete(prolific.url, "P1")
    assert _status(prolific.url, sid) == "ACTIVE"  # P2 is still working
    _complete(prolific.url, "P2")
    assert _status(prolific.url, sid) == "AWAITING REVIEW"
    message = "The answers did not pass the study's checks. " * 3
    api(
        prolific.url,
        "POST",
        f"submissions/{first}/transition/",
        json={"action": "REJECT", "message": message, "rejection_category": "FAILED_CHECK"},
    ).raise_for_status()
    assert _status(prolific.url, sid) == "ACTIVE"  # the rejected place is open again
    _join(prolific.url, sid, "P3")
    api(prolific.url, "POST", f"studies/{sid}/transition/", json={"action": "STOP"})
    assert _status(prolific.url, sid) == "AWAITING REVIEW"
    api(prolific.url, "PATCH", f"studies/{sid}/", json={"total_available_places": 3})
    assert _status(prolific.url, sid) == "AWAITING REVIEW"  # stopped stays stopped


def test_a_bonus_is_paid_after_the_pay_call_answers(tmp_path):
    app = create_app(Settings(db_path=tmp_path / "p.sqlite", bonus_delay=60))
    with ServedApp(app) as served:
        url = served.url
        sid = _published(url)
        sub = _join(url, sid, "P1")
        _complete(url, "P1")
        bonus = api(
            url,
            "POST",
            "submissions/bonus-payments/",
            json={"study_id": sid, "csv_bonuses": "P1,0.50"},
        )
        before = api(url, "GET", "workspaces/6543210fedcba98765432100/balance/").json()
        paid = api(url, "POST", f"bulk-bonus-payments/{bonus.json()['id']}/pay/")
        assert paid.status_code == 202
        after = api(url, "GET", "workspaces/6543210fedcba98765432100/balance/").json()
        assert before["available_balance"] - after["available_balance"] == 70  # charged now
        assert api(url, "GET", f"submissions/{sub}/").json()["bonus_payments"] == []
        requests.post(f"{url}/_control/clock", json={"advance": 61}, timeout=5)
        assert api(url, "GET", f"submissions/{sub}/").json()["bonus_payments"] == [50]
    app.extensions["prolific_local"].close()


def test_a_deleted_group_is_gone(prolific):
    gid = api(prolific.url, "POST", "participant-groups/", json={"name": "g"}).json()["id"]
    assert api(prolific.url, "DELETE", f"participant-groups/{gid}/").status_code == 204
    assert api(prolific.url, "GET", f"participant-groups/{gid}/").status_code == 404
    assert api(prolific.url, "GET", "participant-groups/").json()["meta"] == {"count": 0}


def test_a_message_goes_only_to_a_participant_of_the_study(prolific):
    sid = _published(prolific.url)
    _join(prolific.url, sid, "P1")
    to = {"study_id": sid, "body": "Thanks!"}
    sent = api(prolific.url, "POST", "messages/", json=to | {"recipient_id": "P1"})
    assert sent.status_code == 204
    stranger = api(prolific.url, "POST", "messages/", json=to | {"recipient_id": "P9"})
    assert refused(stranger) == f"Participant P9 has not taken part in study {sid}."
    listed = api(prolific.url, "GET", "messages/", params={"user_id": "P1"}).json()
    assert [m["body"] for m in listed["results"]] == ["Thanks!"]
