"""Bad input to the local Prolific service (issue 21): every refusal is a 4xx in Prolific's JSON
error shape, nothing is stored, and nothing stored poisons later requests."""

from __future__ import annotations

import time
from typing import Any

import pytest
import requests

AUTH = {"Authorization": "Token local"}
JSON = {"Content-Type": "application/json"}
DEEP = "[" * 100_000 + "]" * 100_000


def study_body(**changes: Any) -> dict[str, Any]:
    """A valid new study, as harness's Prolific provider sends it, with ``changes``."""
    body = {
        "name": "Rate words",
        "description": "d",
        "external_study_url": "http://tasks.test/p/s?PROLIFIC_PID={{%PROLIFIC_PID%}}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [{"code": "C0DE", "code_type": "COMPLETED"}],
        "total_available_places": 2,
        "estimated_completion_time": 5,
        "reward": 100,  # $12.00 an hour: Prolific publishes no less than $8.00
        "device_compatibility": ["desktop"],
        "filters": [{"filter_id": "approval_rate", "selected_range": {"lower": 90, "upper": 100}}],
    }
    return body | changes


def refused(r: requests.Response, status: int = 400) -> Any:
    """The ``detail`` of a refusal with ``status`` in Prolific's error shape."""
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == "application/json", r.headers["Content-Type"]
    error = r.json()["error"]
    assert error["status"] == status
    return error["detail"]


def api(prolific, method: str, path: str, **kwargs: Any) -> requests.Response:
    headers = AUTH | kwargs.pop("headers", {})
    return requests.request(
        method, f"{prolific.url}/api/v1/{path}", headers=headers, timeout=10, **kwargs
    )


def published(prolific, **changes: Any) -> str:
    """The id of a new, published study."""
    created = api(prolific, "POST", "studies/", json=study_body(**changes))
    assert created.status_code == 201, created.text
    sid = created.json()["id"]
    api(prolific, "POST", f"studies/{sid}/transition/", json={"action": "PUBLISH"})
    return sid


def listed(prolific, **params: Any) -> requests.Response:
    return requests.get(
        f"{prolific.url}/participant/studies", timeout=10, params={"participant_id": "P1", **params}
    )


def test_a_clock_advance_that_is_not_a_number_is_a_400_and_changes_nothing(prolific):
    for body in ('{"advance": "x"}', '{"advance": NaN}', '{"advance": 1e400}', "[1]"):
        r = requests.post(f"{prolific.url}/_control/clock", data=body, headers=JSON, timeout=10)
        assert r.status_code == 400, (body, r.text)
    now = requests.post(f"{prolific.url}/_control/clock", json={}, timeout=10).json()["now"]
    assert abs(now - time.time()) < 60
    assert api(prolific, "GET", "studies/").status_code == 200


def test_nan_in_a_study_is_refused_not_stored(prolific):
    body = '{"name": "n", "reward": NaN}'
    assert refused(api(prolific, "POST", "studies/", data=body, headers=JSON)) == (
        "The request body is refused: NaN is not a JSON number."
    )
    assert api(prolific, "GET", "studies/").json()["meta"] == {"count": 0}


def test_a_100k_deep_body_is_a_400(prolific):
    assert refused(api(prolific, "POST", "studies/", data=DEEP, headers=JSON)) == (
        "The request body is refused: the JSON body is nested more than 32 levels deep."
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"filters": [1]}, "filters"),
        (
            {"filters": [{"filter_id": "approval_rate", "selected_range": {"lower": "x"}}]},
            "filters",
        ),
        ({"maximum_allowed_time": {"a": 1}}, "maximum_allowed_time"),
        ({"external_study_url": ["x"]}, "external_study_url"),
        ({"completion_codes": [{"code": {"a": 1}}]}, "completion_codes"),
        ({"total_available_places": True}, "total_available_places"),
        ({"reward": 2**70}, "reward"),
        ({"name": {"a": 1}}, "name"),
    ],
)
def test_a_study_field_of_the_wrong_shape_is_refused_and_later_calls_still_work(
    prolific, changes, field
):
    detail = refused(api(prolific, "POST", "studies/", json=study_body(**changes)))
    assert list(detail) == [field]
    published(prolific)
    assert listed(prolific).status_code == 200
    assert api(prolific, "GET", "studies/").json()["meta"] == {"count": 1}


def test_a_participant_profile_that_is_not_a_number_is_refused_not_kept(prolific):
    sid = published(prolific)
    assert refused(listed(prolific, approval_rate="x")) == {
        "approval_rate": ["A number from 0 to 100."]
    }
    assert refused(listed(prolific, approvals="\u0665")) == {
        "approvals": ["A number from 0 to 1e+09."]
    }
    [study] = listed(prolific, approval_rate="95").json()["results"]
    assert study["id"] == sid


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("submissions/bulk-approve/", {"submission_ids": 5}, "submission_ids"),
        ("submissions/bulk-approve/", {"study_id": {}, "participant_ids": ["a"]}, "study_id"),
        ("participant-groups/", {"name": {"a": 1}}, "name"),
        ("participant-groups/", {"name": "g", "participant_ids": [{}]}, "participant_ids"),
        ("studies/{sid}/transition/", {"action": ["PUBLISH"]}, "action"),
    ],
)
def test_requester_bodies_of_the_wrong_shape_are_400s(prolific, path, body, field):
    sid = published(prolific)
    detail = refused(api(prolific, "POST", path.format(sid=sid), json=body))
    assert list(detail) == [field]


@pytest.mark.parametrize("amount", ["1e400", "1_0", "\u0665", "NaN", "-1"])
def test_a_bonus_amount_that_is_not_plain_positive_money_is_refused(prolific, amount):
    sid = published(prolific)
    requests.post(
        f"{prolific.url}/participant/studies/{sid}/join", data={"participant_id": "P1"}, timeout=10
    ).raise_for_status()
    r = api(
        prolific,
        "POST",
        "submissions/bonus-payments/",
        json={"study_id": sid, "csv_bonuses": f"P1,{amount}"},
    )
    assert refused(r).startswith("These ids did not take part in the study, or their amounts")
