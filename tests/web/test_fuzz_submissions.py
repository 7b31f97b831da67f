"""Fuzzing of what a page posts (issues 21 and 41), on a bounded budget: the answer codec
raises only its own error, the one reading of a submission never raises (10,000 seeded
submissions), and the task server answers every post, to a HIT's page or to a study link's
session page, with JSON and a 2xx or 4xx, writing nothing when it refuses (0 tracebacks,
0 partial writes). A longer run: ``scripts/fuzz_submissions.py``."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import func, select

from harness.render.answers import AnswerFormatError, decode_fields, encode_answers
from harness.store import make_engine, session_scope
from harness.store.migrations import upgrade
from harness.store.models import Event, Judgment, QuarantinedSubmission
from harness.web import create_app
from tests.web.factories import PlatformVouches, plan_study, write_task_spec
from tests.web.fuzzing import FuzzServer, read_many
from tests.web.test_task_server import answers

BUDGET = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
NAMES = st.one_of(
    st.sampled_from(["item", "value", "skip", "shown", "answered"]).flatmap(
        lambda kind: st.integers(-2, 99999).map(lambda p: f"{kind}-{p}")
    ),
    st.sampled_from(["assignmentId", "workerId", "hitId", "pageToken", "turkSubmitTo"]),
    st.text(max_size=12),
)
VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "",
            "5",
            "1e-400",
            "٥",
            "５",
            "1_0",
            "nan",
            "-inf",
            "9" * 400,
            "\x00",
            "1" * 17,
            "-1",
            "1.5",
            "6,5",
        ]
    ),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@given(st.lists(st.tuples(NAMES, VALUES), max_size=30))
@BUDGET
def test_the_codec_reads_answers_or_says_what_is_wrong(fields):
    try:
        decode_fields(fields)
    except AnswerFormatError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)


class Server:
    """The task server on a SQLite store with one planned rating study."""

    def __init__(self, directory):
        url = f"sqlite:///{directory / 'fuzz.db'}"
        upgrade(url)
        self.engine = make_engine(url)
        self.study = plan_study(self.engine, write_task_spec(directory, "rating"))
        self.app = create_app(url, verifier=PlatformVouches())
        self.client = self.app.test_client()
        self.keys = self.app.extensions["harness.trust"].keys
        self.ids = itertools.count()

    def rows(self) -> tuple[int, int, int]:
        with session_scope(self.engine) as session:
            return tuple(  # type: ignore[return-value]
                session.exec(select(func.count()).select_from(table)).one()
                for table in (Judgment, QuarantinedSubmission, Event)
            )


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    served = Server(tmp_path_factory.mktemp("fuzz"))
    yield served
    served.app.extensions["harness"].close()
    served.engine.dispose()


MUTATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), NAMES, VALUES),
        st.tuples(st.just("drop"), NAMES, st.just("")),
    ),
    max_size=6,
)


@given(MUTATIONS, st.booleans())
@BUDGET
def test_every_post_is_answered_in_json_and_a_refusal_writes_nothing(server, mutations, signed):
    assignment, worker = f"FZ{next(server.ids)}", "AFUZZ1"
    data: dict[str, Any] = encode_answers(answers(server.study, 6.0, worker=worker))
    data.update(assignmentId=assignment, workerId=worker)
    if signed:
        data["pageToken"] = server.keys.sign(
            "hit", unit=server.study.key(0), assignment_id=assignment, worker_id=worker
        )
    for action, name, value in mutations:
        if action == "set":
            data[name] = value
        else:
            data.pop(name, None)
    before = server.rows()
    response = server.client.post(f"/hit/{server.study.key(0)}/submit", data=data)
    assert response.status_code in (200, 400, 403, 404, 409, 413, 422), response.data[:300]
    assert response.is_json and isinstance(response.json["ok"], bool)
    if response.status_code != 200:
        assert response.json["ok"] is False and response.json["errors"]
        assert server.rows() == before  # nothing partial


def test_ten_thousand_seeded_submissions_are_read_or_refused_and_none_raises(server):
    tally = read_many(random.Random(41), 10_000, server.study)
    assert tally.failures == []
    assert tally.posts == 10_000
    assert {200, 400, 422} <= set(tally.statuses)  # every outcome reached, not only refusals


@pytest.fixture(scope="module")
def both_pages(tmp_path_factory):
    served = FuzzServer(tmp_path_factory.mktemp("fuzz-both"))
    yield served
    served.close()


@pytest.mark.slow
def test_seeded_posts_to_hit_and_session_pages_never_answer_a_server_error(both_pages):
    tally = both_pages.run(random.Random(41), 400)
    assert tally.failures == []
    assert {200, 400, 403, 422} <= set(tally.statuses)
    with session_scope(both_pages.engine) as session:
        answered = select(func.count(func.distinct(Judgment.assignment_id)))
        stored = session.exec(answered).one()
    assert stored == tally.created > 0  # each accepted post stored once, each refusal nothing
