"""Property-based fuzzing of every endpoint of the local Prolific service (issue 21), on a bounded
budget: 0 server errors (every answer is JSON below 500), 0 hangs (every call has a timeout),
0 partial writes (a refused call leaves the database exactly as it was).

Requester bodies are a valid study with fields swapped for awkward values, objects with the keys
the endpoints read, arbitrary JSON and raw bytes; the participant side gets arbitrary
parameters in the query string, a form or a JSON body.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.providers.prolific.local_service import Settings, create_app
from harness.providers.prolific.local_service.state import WORKSPACE
from tests.providers.prolific.test_bad_input import study_body
from tests.serving import ServedApp

TIMEOUT = 10  # seconds: a call that takes longer is a hang
BUDGET = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
AUTH = {"Authorization": "Token local"}
AWKWARD: list[Any] = [
    "",
    " ",
    "\u0665",
    "\uff15",
    "1_0",
    "1e400",
    "NaN",
    "-1",
    "0.505",
    "\x00",
    "A" * 300,
    2**70,
    -1,
    0,
    1.5,
    True,
    None,
    [],
    {},
    ["x"],
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)
KEYS = [
    "action",
    "submission_ids",
    "participant_ids",
    "study_id",
    "csv_bonuses",
    "name",
    "total_available_places",
    "internal_name",
    "description",
    "message",
    "rejection_category",
    "request_return_reasons",
    "workspace_id",
    "event_type",
    "target_url",
    "secret",
    "is_enabled",
    "title",
    "recipient_id",
    "body",
    "reward",
    "project",
]
REQUESTER = [
    ("GET", "users/me/"),
    ("GET", "workspaces/"),
    ("GET", "workspaces/{workspace}/balance/"),
    ("GET", "filters/"),
    ("POST", "studies/"),
    ("GET", "studies/"),
    ("GET", "studies/{study}/"),
    ("PATCH", "studies/{study}/"),
    ("POST", "studies/{study}/transition/"),
    ("GET", "submissions/"),
    ("GET", "studies/{study}/submissions/"),
    ("GET", "studies/{study}/cost/"),
    ("POST", "study-cost-calculator/"),
    ("GET", "workspaces/{workspace}/"),
    ("GET", "workspaces/{workspace}/projects/"),
    ("POST", "workspaces/{workspace}/projects/"),
    ("GET", "projects/{project}/"),
    ("GET", "projects/{project}/studies/"),
    ("POST", "messages/"),
    ("GET", "messages/"),
    ("GET", "participant-groups/{group}/"),
    ("GET", "submissions/{submission}/"),
    ("POST", "submissions/{submission}/transition/"),
    ("POST", "submissions/bulk-approve/"),
    ("POST", "submissions/{submission}/request-return/"),
    ("POST", "submissions/bonus-payments/"),
    ("POST", "bulk-bonus-payments/{bonus}/pay/"),
    ("POST", "participant-groups/"),
    ("GET", "participant-groups/"),
    ("GET", "participant-groups/{group}/participants/"),
    ("POST", "participant-groups/{group}/participants/"),
    ("GET", "hooks/event-types/"),
    ("GET", "hooks/secrets/"),
    ("POST", "hooks/secrets/"),
    ("GET", "hooks/subscriptions/"),
    ("POST", "hooks/subscriptions/"),
    ("GET", "hooks/subscriptions/{hook}/"),
    ("POST", "hooks/subscriptions/{hook}/"),
]
"""(DELETE of a subscription answers 204 with no body: tested in test_hooks.py.)"""
PARTICIPANT = [
    ("GET", "/participant/studies"),
    ("POST", "/participant/studies/{study}/join"),
    ("GET", "/submissions/complete"),
    ("POST", "/participant/submissions/{submission}/return"),
]
PARAMS = [
    "participant_id",
    "country",
    "approval_rate",
    "approvals",
    "cc",
    "page",
    "page_size",
    "study",
]


def serve(db: Path) -> tuple[ServedApp, Any]:
    app = create_app(Settings(db_path=db))
    return ServedApp(app).start(), app


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A running service holding a published study with a submission, a bonus and a group."""
    db = tmp_path_factory.mktemp("prolific-fuzz") / "prolific.sqlite"
    served, app = serve(db)
    base = f"{served.url}/api/v1/"
    study = requests.post(
        base + "studies/", json=study_body(total_available_places=50), headers=AUTH, timeout=TIMEOUT
    ).json()["id"]
    requests.post(
        base + f"studies/{study}/transition/",
        json={"action": "PUBLISH"},
        headers=AUTH,
        timeout=TIMEOUT,
    ).raise_for_status()
    submission = requests.post(
        f"{served.url}/participant/studies/{study}/join",
        data={"participant_id": "P1"},
        timeout=TIMEOUT,
    ).json()
    bonus = requests.post(
        base + "submissions/bonus-payments/",
        headers=AUTH,
        timeout=TIMEOUT,
        json={"study_id": study, "csv_bonuses": "P1,0.10"},
    ).json()
    group = requests.post(
        base + "participant-groups/", json={"name": "g"}, headers=AUTH, timeout=TIMEOUT
    ).json()
    requests.post(
        base + "hooks/secrets/", json={"workspace_id": WORKSPACE}, headers=AUTH, timeout=TIMEOUT
    ).raise_for_status()
    hook = requests.post(
        base + "hooks/subscriptions/",
        headers=AUTH,
        timeout=TIMEOUT,
        json={
            "workspace_id": WORKSPACE,
            "event_type": "submission.status.change",
            "target_url": "http://127.0.0.1:9/h",
        },
    ).json()["results"][0]  # never confirmed: no posts
    project = requests.post(
        base + f"workspaces/{WORKSPACE}/projects/",
        json={"title": "p"},
        headers=AUTH,
        timeout=TIMEOUT,
    ).json()["id"]
    ids = {
        "project": project,
        "study": study,
        "submission": submission["submission_id"],
        "bonus": bonus["id"],
        "group": group["id"],
        "workspace": WORKSPACE,
        "participant": "P1",
        "hook": hook["id"],
    }
    yield {"url": served.url, "ids": ids, "db": db}
    served.stop()
    app.extensions["prolific_local"].close()


def snapshot(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, read from the committed state."""
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        state = {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    conn.close()
    return state


def values(ids: dict[str, str]) -> st.SearchStrategy[Any]:
    return st.sampled_from(sorted(ids.values())) | st.sampled_from(AWKWARD) | JSON


@st.composite
def requester_bodies(draw: st.DrawFn, ids: dict[str, str]) -> bytes:
    kind = draw(st.sampled_from(["study", "keys", "keys", "json", "bytes", "empty"]))
    if kind == "study":
        body = study_body()
        for name in draw(st.lists(st.sampled_from(sorted(body)), min_size=1, max_size=3)):
            body[name] = draw(values(ids))
        return json.dumps(body).encode()
    if kind == "keys":
        return json.dumps(
            draw(st.dictionaries(st.sampled_from(KEYS), values(ids), max_size=4))
        ).encode()
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=40))
    return b""


def check_refusal_changed_nothing(world: dict[str, Any], call) -> requests.Response:
    # what falls due by the clock (time-outs, bonus payments asked for) is done by any call
    # first: by this one, before the snapshot
    requests.get(f"{world['url']}/api/v1/users/me/", headers=AUTH, timeout=TIMEOUT)
    before = snapshot(world["db"])
    r = call()
    assert r.status_code < 500, r.text
    assert r.headers["Content-Type"] == "application/json", r.text
    body = r.json()
    if r.status_code >= 400:
        assert set(body["error"]) == {"status", "error_code", "title", "detail"}, body
        assert snapshot(world["db"]) == before, f"a refused call wrote: {r.text}"
    return r


def aimed(data: st.DataObject, ids: dict[str, str]) -> dict[str, str]:
    return {k: data.draw(st.sampled_from([v, "X", "%00", "A" * 300])) for k, v in ids.items()}


@BUDGET
@given(data=st.data())
def test_requester_api_never_fails_hangs_or_half_writes(world, data):
    method, template = data.draw(st.sampled_from(REQUESTER))
    path = template.format(**aimed(data, world["ids"]))
    body = data.draw(requester_bodies(world["ids"]))
    query = data.draw(
        st.dictionaries(
            st.sampled_from(["page", "page_size", "study", "user_id"]),
            values(world["ids"]).map(str),
            max_size=2,
        )
    )

    def call() -> requests.Response:
        return requests.request(
            method,
            f"{world['url']}/api/v1/{path}",
            params=query,
            data=body,
            headers=AUTH | {"Content-Type": "application/json"},
            timeout=TIMEOUT,
        )

    check_refusal_changed_nothing(world, call)


def urlencoded(values: dict[str, Any]) -> str:
    """Query or form encoding that also carries lone surrogates (as the bytes a client sends)."""
    return "&".join(
        f"{quote_plus(k)}={quote_plus(str(v).encode('utf-8', 'surrogatepass'))}"
        for k, v in values.items()
    )


@BUDGET
@given(data=st.data())
def test_participant_side_never_fails_hangs_or_half_writes(world, data):
    method, template = data.draw(st.sampled_from(PARTICIPANT))
    path = template.format(**aimed(data, world["ids"]))
    params = data.draw(st.dictionaries(st.sampled_from(PARAMS), values(world["ids"]), max_size=4))
    encoding = data.draw(st.sampled_from(["query", "form", "json", "junk"]))
    junk = data.draw(st.binary(max_size=30))

    def call() -> requests.Response:
        url = world["url"] + path
        if encoding == "query":
            return requests.request(method, f"{url}?{urlencoded(params)}", timeout=TIMEOUT)
        if encoding == "form":
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            return requests.request(
                method, url, data=urlencoded(params), headers=form, timeout=TIMEOUT
            )
        body = json.dumps(params).encode() if encoding == "json" else junk
        return requests.request(
            method, url, data=body, timeout=TIMEOUT, headers={"Content-Type": "application/json"}
        )

    check_refusal_changed_nothing(world, call)


CONTROL = st.fixed_dictionaries(
    {},
    optional={
        "advance": JSON | st.sampled_from([1.5, -1e12, 1e300, 86400, "x"]),
        "latency_ms": JSON | st.sampled_from([-1, 0, 5, 1e9]),
        "rate_limit_share": JSON,
        "unavailable_share": JSON,
        "retry_after": JSON,
        "seed": JSON,
    },
)


@settings(BUDGET, max_examples=40)
@given(path=st.sampled_from(["clock", "faults"]), body=CONTROL | JSON)
def test_control_side_never_fails_hangs_or_half_writes(world, path, body):
    url = f"{world['url']}/_control"
    faults_before = requests.get(f"{url}/faults", timeout=TIMEOUT).json()

    def call() -> requests.Response:
        return requests.post(
            f"{url}/{path}",
            data=json.dumps(body),
            timeout=TIMEOUT,
            headers={"Content-Type": "application/json"},
        )

    r = check_refusal_changed_nothing(world, call)
    if r.status_code >= 400:
        assert requests.get(f"{url}/faults", timeout=TIMEOUT).json() == faults_before
    # Leave no fault switched on and the clock where it was for the next example.
    requests.post(
        f"{url}/faults",
        timeout=TIMEOUT,
        json={"rate_limit_share": 0, "unavailable_share": 0, "latency_ms": 0},
    )
    if r.status_code == 200 and path == "clock" and isinstance(body, dict):
        requests.post(
            f"{url}/clock", json={"advance": -float(body.get("advance", 0))}, timeout=TIMEOUT
        )
