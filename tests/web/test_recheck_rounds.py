"""A round of rechecks holds no database connection while the platform answers: under a burst
the platform may take seconds over a round's HITs, and a transaction left open meanwhile would
keep a connection from the requests (and, on PostgreSQL, a snapshot from vacuum)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.platform.submissions.rechecks import Rechecks
from harness.platform.verification import Verdict, Verification, Verifier
from harness.spec import load_spec
from harness.store import create_study, session_scope
from harness.store.models import Hit, QuarantinedSubmission, QuarantineState
from harness.store.quarantine import quarantine
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

HITS = 3


class Noting(Verifier):
    """A platform that refuses every claim and notes how many store connections were out
    while it was asked, HIT by HIT."""

    def __init__(self, engine) -> None:
        super().__init__()
        self.engine = engine
        self.connections_out: list[int] = []

    def asking_many(self, session, study, hit, claims):
        def ask() -> list[Verification]:
            self.connections_out.append(self.engine.pool.checkedout())
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
                quarantine(
                    session,
                    study_id=study.id,
                    hit_id=hit.id,
                    assignment_id=f"A{hit.index}{worker}",
                    worker_id=worker,
                    fields=[("x", "1")],
                    reason="not submitted yet",
                )
    with session_scope(engine) as session:
        return [r.id for r in session.exec(select(QuarantinedSubmission))]


def test_the_platform_is_asked_about_each_hit_with_no_connection_out(engine, claims_on_hits):
    platform = Noting(engine)
    rechecks = Rechecks(engine, platform, after_submission=None)
    try:
        settled = rechecks.recheck_many(claims_on_hits)
    finally:
        rechecks.close()
    assert platform.connections_out == [0] * HITS
    assert {row_id: s.state for row_id, s in settled.items()} == {
        row_id: QuarantineState.REFUSED for row_id in claims_on_hits
    }
