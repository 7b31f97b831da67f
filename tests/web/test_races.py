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

from harness.render.answers import encode_answers
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


def test_concurrent_first_loads_of_a_page_all_succeed_and_write_nothing(make_app, rating, engine):
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
            data = fields(
                rating, assignment=assignment, worker=worker, pageToken=token_in_page(page.text)
            )
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


def test_concurrent_submissions_of_one_study_link_session_store_once(database_url, tmp_path):
    """The participant pages (Prolific, a study link): the same race, the same truth."""
    import re

    from harness.spec import load_spec
    from harness.web import create_app
    from tests.platform.factories import harness_cli, small_spec
    from tests.providers.link.test_link_platform import _answers

    spec = small_spec(tmp_path, hosting="external")
    launched = harness_cli(
        "launch",
        str(spec),
        "--target",
        "link",
        "--db",
        database_url,
        "--public-url",
        "http://tasks.test",
    )
    assert launched.exit_code == 0, launched.output
    calls: list[int | None] = []
    app = create_app(database_url, after_submission=lambda _e, _s, a: calls.append(a))
    engine = app.extensions["harness"].engine
    try:
        with ServedApp(app) as server, requests.Session() as browser:
            arrived = browser.get(f"{server.url}/p/small?participant=P1", allow_redirects=False)
            assert arrived.status_code == 303, arrived.text
            page_url = server.url + arrived.headers["Location"]
            page = browser.get(page_url)
            keys = re.findall(r'<section class="card" data-key="([^"]*)"', page.text)
            ref = page_url.rsplit("/", 1)[1]
            with session_scope(engine) as session:
                from harness.store.models import Hit, Slot

                slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
                hit = session.get(Hit, slot.hit_id)
                index, items = hit.index, list(hit.items)
            answers = _answers(load_spec(spec), items, index, "P1")
            assert [a.item_key for a in answers] == keys
            data = encode_answers(answers) | {
                "workerId": "P1",
                "assignmentId": ref,
                "pageToken": token_in_page(page.text),
            }
            cookies = browser.cookies.get_dict()  # the session's browser, posting many times
            responses = at_once(
                AT_ONCE,
                lambda _: requests.post(
                    f"{page_url}/submit", data=data, cookies=cookies, timeout=60
                ),
            )
        assert [r.status_code for r in responses] == [200] * AT_ONCE, [r.text for r in responses]
        created = [r.json()["created"] for r in responses]
        assert created.count(True) == 1, created
        assert count(engine, Judgment) == len(keys)
        assert len(calls) == 1
    finally:
        app.extensions["harness"].close()
