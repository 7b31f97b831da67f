"""A request does work in proportion to what it changes, not to how many HITs are open (issue
19): the number of SQL statements a call runs is the same with 3 open HITs and with 60. Before,
every request ran a count query per open HIT. (Speed itself is measured by
scripts/bench_local_mturk.py, not here.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import event

from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params


@contextmanager
def counting(mturk: LocalMTurk) -> Iterator[list[str]]:
    """Every statement SQLite runs meanwhile (BEGIN and COMMIT included): SQLite's own trace
    of each connection."""
    statements: list[str] = []
    engine = mturk.app.extensions["mturk_local"].engine

    def trace(dbapi_connection, _record, _proxy) -> None:
        dbapi_connection.set_trace_callback(statements.append)

    def untrace(dbapi_connection, _record) -> None:
        dbapi_connection.set_trace_callback(None)

    event.listen(engine, "checkout", trace)
    event.listen(engine, "checkin", untrace)
    try:
        yield statements
    finally:
        event.remove(engine, "checkout", trace)
        event.remove(engine, "checkin", untrace)


def statements_for(mturk: LocalMTurk, call: Callable[[], object]) -> int:
    with counting(mturk) as statements:
        call()
    return len(statements)


def open_hits(client, type_id: str, n: int) -> list[str]:
    question = hit_params()["Question"]
    return [
        client.create_hit_with_hit_type(
            HITTypeId=type_id, MaxAssignments=3, LifetimeInSeconds=3600, Question=question
        )["HIT"]["HITId"]
        for _ in range(n)
    ]


def costs(mturk: LocalMTurk, client, type_id: str, worker: str) -> dict[str, int]:
    question = hit_params()["Question"]
    hit_id = open_hits(client, type_id, 1)[0]
    accepted: dict[str, str] = {}
    return {
        "create": statements_for(
            mturk,
            lambda: client.create_hit_with_hit_type(
                HITTypeId=type_id, MaxAssignments=3, LifetimeInSeconds=3600, Question=question
            ),
        ),
        "list": statements_for(mturk, lambda: mturk.get("/worker/hits", workerId=worker)),
        "accept": statements_for(
            mturk, lambda: accepted.update(a=mturk.accept(hit_id, worker)["AssignmentId"])
        ),
        "submit": statements_for(mturk, lambda: mturk.submit(accepted["a"], answer="3")),
        "balance": statements_for(mturk, client.get_account_balance),
    }


def test_statements_per_call_do_not_grow_with_open_hits(mturk, client):
    type_id = client.create_hit_type(
        Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=600
    )["HITTypeId"]
    mturk.get("/worker/hits", workerId="AFEW")
    mturk.get("/worker/hits", workerId="AMANY")
    open_hits(client, type_id, 3)
    few = costs(mturk, client, type_id, "AFEW")
    open_hits(client, type_id, 57)
    many = costs(mturk, client, type_id, "AMANY")
    assert few == many
    assert max(few.values()) <= 25
