"""Property-based fuzzing of every endpoint of the local MTurk service (issue 21), on a bounded
budget: 0 server errors, 0 hangs (every call has a timeout), 0 partial writes (a refused call
leaves the database exactly as it was).

Requester bodies are drawn from botocore's own model of each operation (so they reach the
operations, not just the validator), with ids biased toward ones that exist, numbers up to 2**70,
awkward strings, missing and unknown members, plus arbitrary JSON and raw bytes. The worker and
control sides get arbitrary parameters in the query string, a form or a JSON body.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote_plus

import botocore.session
import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params

TIMEOUT = 10  # seconds: a call that takes longer is a hang
BUDGET = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MODEL = botocore.session.get_session().get_service_model("mturk")
TEST = (
    '<QuestionForm xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2017-11-06/QuestionForm.xsd"><Question><QuestionIdentifier>q</QuestionIdentifier>'
    "<QuestionContent><Text>?</Text></QuestionContent><AnswerSpecification><SelectionAnswer>"
    "<Selections><Selection><SelectionIdentifier>a</SelectionIdentifier><Text>a</Text>"
    "</Selection></Selections></SelectionAnswer></AnswerSpecification></Question></QuestionForm>"
)
KEY = (
    '<AnswerKey xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2005-10-01/AnswerKey.xsd"><Question><QuestionIdentifier>q</QuestionIdentifier>'
    "<AnswerOption><SelectionIdentifier>a</SelectionIdentifier><AnswerScore>1</AnswerScore>"
    "</AnswerOption></Question></AnswerKey>"
)
AWKWARD = ["", " ", "٥", "５", "1_0", "1e400", "NaN", "-1", "0.505", "\x00", "\ud800", "A" * 70]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A running service holding one of everything, and the ids a fuzzer should aim at."""
    service = LocalMTurk(tmp_path_factory.mktemp("fuzz") / "mturk.sqlite").start()
    client = service.client()
    hit = client.create_hit(**hit_params(MaxAssignments=5))["HIT"]
    assignment = service.work(hit["HITId"], "AWORKER1")
    held = service.accept(hit["HITId"], "AWORKER2")["AssignmentId"]
    qual = client.create_qualification_type(
        Name="fuzz",
        Description="d",
        QualificationTypeStatus="Active",
        Test=TEST,
        AnswerKey=KEY,
        TestDurationInSeconds=600,
    )["QualificationType"]["QualificationTypeId"]
    manual = client.create_qualification_type(
        Name="manual", Description="d", QualificationTypeStatus="Active"
    )["QualificationType"]["QualificationTypeId"]
    request_id = service.post(f"/worker/qualifications/{manual}/request", workerId="AWORKER1")
    client.create_worker_block(WorkerId="ABLOCKED", Reason="r")
    ids = {
        "hit": hit["HITId"],
        "hit_type": hit["HITTypeId"],
        "assignment": assignment,
        "held": held,
        "qual": qual,
        "manual": manual,
        "request": request_id.json()["QualificationRequestId"],
        "masters": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
        "worker": "AWORKER1",
    }
    yield {"service": service, "ids": ids, "db": service.db_path}
    service.stop()


def snapshot(db) -> dict[str, list[tuple]]:
    """Every row of every table, read from the committed state."""
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        state = {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    conn.close()
    return state


def strings(ids: dict[str, str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(sorted(ids.values())),
        st.sampled_from(AWKWARD),
        st.text(max_size=12),
        st.sampled_from([hit_params()["Question"], TEST, KEY, "0.50", "Active", "SQS"]),
    )


def for_shape(shape: Any, ids: dict[str, str]) -> st.SearchStrategy[Any]:
    kind = shape.type_name
    if kind == "structure":
        members = {name: for_shape(m, ids) for name, m in shape.members.items()}
        return st.fixed_dictionaries({}, optional=members)
    if kind == "list":
        return st.lists(for_shape(shape.member, ids), max_size=3)
    if kind == "string":
        enum = getattr(shape, "enum", None) or []
        return st.sampled_from(enum) | strings(ids) if enum else strings(ids)
    if kind in ("integer", "long"):
        return st.integers(0, 120) | st.integers(-(2**70), 2**70)
    if kind == "boolean":
        return st.booleans()
    if kind == "timestamp":
        return st.integers(0, 2**40) | st.floats(-1e20, 1e20)
    return st.none()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)


@st.composite
def requester_calls(draw: st.DrawFn, ids: dict[str, str]) -> tuple[str, bytes]:
    operation = draw(st.sampled_from(sorted(MODEL.operation_names) + ["NoSuchOperation"]))
    known = operation in MODEL.operation_names
    shape = MODEL.operation_model(operation).input_shape if known else None
    kind = draw(st.sampled_from(["model", "model", "model", "json", "bytes"]))
    if kind == "model" and shape is not None:
        body = json.dumps(draw(for_shape(shape, ids))).encode()
    elif kind == "bytes":
        body = draw(st.binary(max_size=40))
    else:
        body = json.dumps(draw(JSON)).encode()
    return operation, body


def urlencoded(values: dict[str, Any]) -> str:
    """Query or form encoding that also carries lone surrogates (as the bytes a client sends)."""
    return "&".join(
        f"{quote_plus(k)}={quote_plus(str(v).encode('utf-8', 'surrogatepass'))}"
        for k, v in values.items()
    )


def check_refusal_changed_nothing(world: dict[str, Any], call) -> requests.Response:
    before = snapshot(world["db"])
    r = call()
    assert r.status_code < 500, r.text
    assert r.headers["Content-Type"].startswith("application/"), r.text
    body = r.json()
    if r.status_code >= 400:
        assert "__type" in body or "error" in body
        assert snapshot(world["db"]) == before, f"a refused call wrote: {r.text}"
    return r


@BUDGET
@given(data=st.data())
def test_requester_api_never_fails_hangs_or_half_writes(world, data):
    service = world["service"]
    operation, body = data.draw(requester_calls(world["ids"]))

    def call() -> requests.Response:
        return service.session.post(
            service.url + "/",
            data=body,
            headers={
                "X-Amz-Target": f"MTurkRequesterServiceV20170117.{operation}",
                "Content-Type": "application/x-amz-json-1.1",
            },
            timeout=TIMEOUT,
        )

    check_refusal_changed_nothing(world, call)


WORKER_PATHS = [
    ("get", "/worker/hits"),
    ("get", "/worker/hits/{hit}"),
    ("post", "/worker/hits/{hit}/accept"),
    ("post", "/worker/assignments/{held}/return"),
    ("post", "/worker/assignments/{held}/submit"),
    ("post", "/mturk/externalSubmit"),
    ("get", "/worker/messages"),
    ("get", "/worker/qualifications/{qual}"),
    ("post", "/worker/qualifications/{manual}/request"),
    ("post", "/worker/qualification-requests/{request}/answers"),
]
PARAMS = [
    "workerId",
    "country",
    "subdivision",
    "percentApproved",
    "numberApproved",
    "master",
    "adult",
    "maxResults",
    "nextToken",
    "acceptable",
    "assignmentId",
    "q",
    "answer",
]


@BUDGET
@given(data=st.data())
def test_worker_side_never_fails_hangs_or_half_writes(world, data):
    service, ids = world["service"], world["ids"]
    method, template = data.draw(st.sampled_from(WORKER_PATHS))
    aimed = {k: data.draw(st.sampled_from([v, "X", "%00", "A" * 300])) for k, v in ids.items()}
    path = template.format(**aimed)
    values = data.draw(
        st.dictionaries(
            st.sampled_from(PARAMS), strings(ids) | st.integers(-(2**70), 2**70), max_size=4
        )
    )
    if data.draw(st.booleans()):
        values["workerId"] = data.draw(st.sampled_from(["AWORKER1", "AWORKER2", "ABLOCKED", "AW9"]))
    encoding = data.draw(st.sampled_from(["query", "form", "json", "junk"]))

    junk = data.draw(st.binary(max_size=30))

    def call() -> requests.Response:
        url = service.url + path
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        as_json = {"Content-Type": "application/json"}
        if encoding == "query":
            url += "?" + urlencoded(values)
            return service.session.request(method, url, timeout=TIMEOUT)
        if encoding == "form":
            body = urlencoded(values)
            return service.session.request(method, url, data=body, headers=form, timeout=TIMEOUT)
        body = json.dumps(values) if encoding == "json" else junk
        return service.session.request(method, url, data=body, headers=as_json, timeout=TIMEOUT)

    check_refusal_changed_nothing(world, call)


CONTROL_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "advance": JSON | st.sampled_from([1.5, -1e12, 1e300, 86400]),
        "set": JSON | st.sampled_from([0, 1e9, 253402300800]),
        "frozen": JSON,
        "balance": strings({"amount": "0.50"}) | JSON,
        "latency_ms": JSON | st.sampled_from([-1, 0, 5, 1e9]),
        "throttle_share": JSON,
        "unavailable_share": JSON,
        "throttle_rate": JSON,
        "seed": JSON,
    },
)


@settings(BUDGET, max_examples=50)  # five calls an example
@given(path=st.sampled_from(["clock", "balance", "faults", "deliver"]), body=CONTROL_BODIES)
def test_control_side_never_fails_hangs_or_half_writes(world, path, body):
    service = world["service"]
    faults_before = service.session.get(f"{service.url}/_control/faults", timeout=TIMEOUT).json()
    clock_before = service.session.get(f"{service.url}/_control/clock", timeout=TIMEOUT).json()

    def call() -> requests.Response:
        return service.session.post(
            f"{service.url}/_control/{path}",
            data=json.dumps(body),  # Infinity and -Infinity included, as a careless client sends
            headers={"Content-Type": "application/json"},
            timeout=TIMEOUT,
        )

    r = check_refusal_changed_nothing(world, call)
    faults_after = service.session.get(f"{service.url}/_control/faults", timeout=TIMEOUT).json()
    if r.status_code >= 400:
        assert faults_after == faults_before
        clock_after = service.session.get(f"{service.url}/_control/clock", timeout=TIMEOUT).json()
        assert clock_after["frozen"] == clock_before["frozen"]
    # Leave no fault switched on and the clock near now for the next example.
    defaults = {"throttle_rate": None, "throttle_share": 0, "unavailable_share": 0, "latency_ms": 0}
    service.session.post(f"{service.url}/_control/faults", json=defaults, timeout=TIMEOUT)
    service.session.post(
        f"{service.url}/_control/clock", json={"set": time.time()}, timeout=TIMEOUT
    )
