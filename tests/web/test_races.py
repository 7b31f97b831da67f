"""Races of a burst of workers, through a real threaded HTTP server on SQLite and PostgreSQL:
concurrent first loads of one page, concurrent submissions of one assignment. The database
decides who wins; every loser is told the truth and nobody gets a 500."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from sqlmodel import func, select

from harness.store import session_scope
from harness.store.models import Assignment, Event, EventKind, Judgment, Worker
from harness.web.tokens import token_in_page
from tests.serving import ServedApp
from tests.web.factories import plan_study, write_task_spec
from tests.web.test_task_server import fields, page_url

AT_ONCE = 10
ROUNDS = 4


def at_once(n: int, call: Callable[[int], Any]) -> list[Any]:
    """Call ``call(i)`` for i in 0..n-1 from n threads released together."""
    barrier = threading.Barrier(n)

    def run(i: int) -> Any:
        barrier.wait()
        return call(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


@pytest.fixture
def rating(engine, tmp_path):
    return plan_study(engine, write_task_spec(tmp_path, "rating"))


def count(engine, model, *where) -> int:
    with session_scope(engine) as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


def test_concurrent_first_loads_of_a_page_all_succeed_and_write_nothing(
    make_app, rating, engine
):
    with ServedApp(make_app()) as server:
        for r in range(ROUNDS):  # each round: a worker and an assignment nobody has seen yet
            url = server.url + page_url(rating, assignment=f"A{r}", worker=f"W{r}")
            statuses = at_once(
                AT_ONCE, lambda _, url=url: requests.get(url, timeout=60).status_code
            )
            assert statuses == [200] * AT_ONCE, f"round {r}"
    # a page load claims nothing (a link opened by someone else locks nobody out): the
    # assignment and its worker are stored with the first submission the platform vouches for
    assert count(engine, Assignment) == 0
    assert count(engine, Worker) == 0


def test_concurrent_submissions_of_one_assignment_store_once_and_tell_one_it_created(
    make_app, rating, engine
):
    calls: list[int | None] = []
    lock = threading.Lock()

    def hook(_engine, _study, assignment):
        with lock:
            calls.append(assignment)

    with ServedApp(make_app(after_submission=hook)) as server:
        url = f"{server.url}/hit/{rating.key(0)}/submit"
        for r in range(ROUNDS):
            assignment, worker = f"A{r}", f"W{r}"
            page = requests.get(server.url + page_url(rating, assignment, worker))
            assert page.ok
            data = fields(rating, assignment=assignment, worker=worker,
                          pageToken=token_in_page(page.text))  # fmt: skip
            answers = at_once(
                AT_ONCE, lambda _, data=data: requests.post(url, data=data, timeout=60)
            )
            assert [a.status_code for a in answers] == [200] * AT_ONCE, [a.text for a in answers]
            created = [a.json()["created"] for a in answers]
            assert created.count(True) == 1, f"round {r}: {created}"
            told = {a.json()["message"] for a in answers if not a.json()["created"]}
            assert told == {"Your answers were already recorded; nothing was changed."}
    shown = len(rating.plans[0].showings)
    assert count(engine, Judgment) == ROUNDS * shown
    assert count(engine, Event, Event.kind == EventKind.ASSIGNMENT_SUBMITTED) == ROUNDS
    assert len(calls) == ROUNDS  # the screening hook ran once per assignment
    assert len(set(calls)) == ROUNDS
