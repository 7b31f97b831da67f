"""A round of rechecks asks the platform about each HIT's quarantined claims with no
transaction open, and about several HITs at once, then settles several claims at once (those on
one assignment in order): under a burst a round covers dozens of HITs and a hundred claims, and
one after the other, the platform's and the database's latencies would add up before the last
claim of the round is settled."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from harness.platform.verification import Verdict, Verification, Verifier
from harness.spec import load_spec
from harness.store import create_study, session_scope
from harness.store.models import Hit, QuarantinedSubmission, QuarantineState
from harness.store.quarantine import quarantine
from harness.web.trust import ASKS_AT_ONCE, SETTLES_AT_ONCE, Rechecks
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

HITS = 5


class Gathering(Verifier):
    """A platform that answers a HIT's question only once ``together`` questions are being
    asked at the same time (a barrier, broken after a few seconds when they come one by one),
    refusing every claim; it notes how many store connections were out while it was asked."""

    def __init__(self, engine, together: int) -> None:
        super().__init__()
        self.engine = engine
        self.barrier = threading.Barrier(together, timeout=5)
        self.connections_out: list[int] = []

    def asking_many(self, session, study, hit, claims):
        def ask() -> list[Verification]:
            self.connections_out.append(self.engine.pool.checkedout())
            self.barrier.wait()
            return [Verification(Verdict.REFUSED, "another worker's") for _ in claims]

        return ask


@pytest.fixture
def claims_on_hits(engine, tmp_path) -> list[int]:
    """Two quarantined claims on each of `HITS` HITs of one study; their row ids."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study = create_study(session, loaded)
        hits = [Hit(study_id=study.id, index=i, max_assignments=2, items=[]) for i in range(HITS)]
        session.add_all(hits)
        session.flush()
        for hit in hits:
            for worker in ("W1", "W2"):
                quarantine(session, study_id=study.id, hit_id=hit.id,
                           assignment_id=f"A{hit.index}{worker}", worker_id=worker,
                           fields=[("x", "1")], reason="not submitted yet")  # fmt: skip
    with session_scope(engine) as session:
        return [r.id for r in session.exec(select(QuarantinedSubmission))]


def test_a_round_asks_about_several_hits_at_once_with_no_connection_out(engine, claims_on_hits):
    assert HITS <= ASKS_AT_ONCE
    platform = Gathering(engine, together=HITS)
    rechecks = Rechecks(engine, platform, after_submission=None)
    try:
        settled = rechecks.recheck_many(claims_on_hits)
    finally:
        rechecks.close()
    assert not platform.barrier.broken  # every HIT were being asked at the same time
    assert platform.connections_out == [0] * HITS
    assert {row_id: s.state for row_id, s in settled.items()} == {
        row_id: QuarantineState.REFUSED for row_id in claims_on_hits
    }


def test_one_hit_is_asked_in_the_rounds_own_thread(engine, claims_on_hits):
    platform = Gathering(engine, together=1)
    asked_in: list[str] = []
    asking = platform.asking_many

    def noting(*args):
        ask = asking(*args)

        def in_thread():
            asked_in.append(threading.current_thread().name)
            return ask()

        return in_thread

    platform.asking_many = noting  # type: ignore[method-assign]
    rechecks = Rechecks(engine, platform, after_submission=None)
    try:
        settled = rechecks.recheck_many(claims_on_hits[:2])  # both claims of the first HIT
    finally:
        rechecks.close()
    assert asked_in == [threading.current_thread().name]
    assert [s.state for s in settled.values()] == [QuarantineState.REFUSED] * 2


def test_claims_on_different_assignments_settle_at_once_and_one_assignments_in_order(
    engine, claims_on_hits
):
    """On PostgreSQL; on SQLite, which lets one writer in at a time, one after the other."""
    with session_scope(engine) as session:
        first = session.get(QuarantinedSubmission, claims_on_hits[0])
        # a second claim on the first claim's assignment, by another worker
        again, _ = quarantine(session, study_id=first.study_id, hit_id=first.hit_id,
                              assignment_id=first.platform_assignment_id, worker_id="W3",
                              fields=[("x", "1")], reason="not submitted yet")  # fmt: skip
        row_ids = [*claims_on_hits, again.id]
    rechecks = Rechecks(engine, Gathering(engine, together=1), after_submission=None)
    at_once = 1 if engine.dialect.name == "sqlite" else SETTLES_AT_ONCE
    together = threading.Barrier(at_once, timeout=5)
    order: list[int] = []
    running, most = [0], [0]
    count = threading.Lock()
    settle = rechecks._settle

    def settling(row_id, *args):
        with count:
            order.append(row_id)
            running[0] += 1
            most[0] = max(most[0], running[0])
            first = len(order) <= at_once
        if first:  # the first ones wait for each other
            together.wait()
        try:
            return settle(row_id, *args)
        finally:
            with count:
                running[0] -= 1

    rechecks._settle = settling  # type: ignore[method-assign]
    try:
        settled = rechecks.recheck_many(row_ids)
    finally:
        rechecks.close()
    assert not together.broken and most[0] == at_once
    assert sorted(order) == sorted(row_ids)
    assert order.index(claims_on_hits[0]) < order.index(again.id)
    assert [s.state for s in settled.values()] == [QuarantineState.REFUSED] * len(row_ids)
