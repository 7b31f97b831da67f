"""Claiming a platform action: done once, another holder's intent means later, an undone action
(a block lifted by an unblock) may be done again, an abandoned intent is resumed at once and
what the platform shows done is logged, not done again."""

from __future__ import annotations

import pytest
from sqlmodel import select

from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.action_claims import ActionInProgress, begin_action, finish_abandoned, intent
from harness.store.events import record_event
from harness.store.models import Event, EventKind
from harness.store.owners import new_claim
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

BLOCK = (EventKind.BLOCK_INTENT, EventKind.BLOCKED)


@pytest.fixture
def study(database_url, tmp_path):
    engine = make_engine(database_url)
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    loaded = load_spec(write_spec(tmp_path, MINIMAL_RATING_SPEC))
    with session_scope(engine) as session:
        study_id = create_study(session, loaded).id
    yield engine, study_id
    engine.dispose()


def logged(engine, study_id, kind, reason):
    with session_scope(engine) as session:
        record_event(session, kind, study_id=study_id, subject="W1", payload={"reason": reason})


def claims(engine, study_id, reason, undone=EventKind.UNBLOCKED):
    with session_scope(engine) as session:
        return begin_action(session, study_id, *BLOCK, "W1", reason, undone=undone)


def test_a_block_is_done_once_and_again_after_an_unblock(study):
    engine, study_id = study
    assert claims(engine, study_id, "screening low_variance")
    logged(engine, study_id, EventKind.BLOCK_INTENT, "screening low_variance")
    logged(engine, study_id, EventKind.BLOCKED, "screening low_variance")
    assert not claims(engine, study_id, "dashboard: blocked by hand")  # blocked already
    logged(engine, study_id, EventKind.UNBLOCKED, "dashboard: a mistake")
    # the earlier intent has its result: not another process's block in progress
    assert claims(engine, study_id, "dashboard: blocked by hand")
    logged(engine, study_id, EventKind.BLOCK_INTENT, "dashboard: blocked by hand")
    with pytest.raises(ActionInProgress, match="dashboard: blocked by hand"):
        claims(engine, study_id, "screening low_variance")


def test_without_an_undo_a_logged_result_is_final(study):
    engine, study_id = study
    logged(engine, study_id, EventKind.BLOCKED, "screening low_variance")
    logged(engine, study_id, EventKind.UNBLOCKED, "dashboard: a mistake")
    assert not claims(engine, study_id, "dashboard: blocked by hand", undone=None)


def intents_then(engine, study_id, body):
    """Record an intent to block W1 through `intent` and run ``body`` inside it."""
    with session_scope(engine) as session:
        with intent(session, study_id, EventKind.BLOCK_INTENT, "W1", reason="screening h"):
            body(engine)


def kinds(engine):
    with session_scope(engine) as session:
        query = select(Event).where(Event.subject.in_(["W1", "A1"])).order_by(Event.id)
        return [(e.kind, e.payload) for e in session.exec(query)]


def test_an_intent_held_here_is_in_progress_whatever_its_reason(study):
    engine, study_id = study

    def meanwhile(engine):
        for reason in ("screening h", "dashboard: blocked by hand"):
            with pytest.raises(ActionInProgress, match="another process is doing it"):
                claims(engine, study_id, reason)

    intents_then(engine, study_id, meanwhile)


def test_an_abandoned_intent_is_resumed_at_once_and_not_redone_when_the_platform_shows_it(
    study,
):
    engine, study_id = study
    with session_scope(engine) as session:  # as a process killed in the middle leaves it
        record_event(
            session,
            EventKind.BLOCK_INTENT,
            study_id=study_id,
            subject="W1",
            payload={"reason": "screening h", "owner": new_claim()},
        )
    asked = []

    def platform_shows(done):
        def ask():
            asked.append(done)
            return done

        return ask

    with session_scope(engine) as session:  # the platform does not show it: do it again
        assert begin_action(
            session, study_id, *BLOCK, "W1", "screening h", done_already=platform_shows(False)
        )
        session.rollback()
    with session_scope(engine) as session:
        assert not begin_action(
            session, study_id, *BLOCK, "W1", "other reason", done_already=platform_shows(True)
        )
    assert asked == [False, True]
    (intent_event, result) = kinds(engine)
    assert result[0] is EventKind.BLOCKED
    assert (
        result[1]["reason"] == "screening h" and "stopped before logging" in result[1]["recovered"]
    )
    assert not claims(engine, study_id, "screening h")  # done: nothing is asked again
    assert asked == [False, True]


def test_a_failed_attempt_is_logged_and_not_mistaken_for_one_in_progress(study):
    engine, study_id = study

    def fails(_engine):
        raise ConnectionError("MTurk did not answer")

    with pytest.raises(ConnectionError):
        intents_then(engine, study_id, fails)
    (_, failed) = kinds(engine)
    assert failed[0] is EventKind.ACTION_FAILED
    assert failed[1]["action"] == "worker.block.intent"
    assert failed[1]["error"] == "ConnectionError: MTurk did not answer"
    assert claims(engine, study_id, "dashboard: blocked by hand")  # not in progress: do it


def test_the_result_of_an_abandoned_intent_is_logged_once(study):
    engine, study_id = study
    with session_scope(engine) as session:
        record_event(
            session,
            EventKind.REJECT_INTENT,
            study_id=study_id,
            subject="A1",
            payload={"reason": "screening h", "owner": new_claim()},
        )
    reject = (EventKind.REJECT_INTENT, EventKind.REJECTED, "A1")
    for expected in (True, False):
        with session_scope(engine) as session:
            assert finish_abandoned(session, study_id, *reject) is expected
    assert [k for k, _ in kinds(engine)] == [EventKind.REJECT_INTENT, EventKind.REJECTED]

    def meanwhile(engine):  # a live holder logs its own result
        with session_scope(engine) as session:
            assert not finish_abandoned(session, study_id, *BLOCK, "W1")

    intents_then(engine, study_id, meanwhile)


def test_a_holder_that_finishes_while_its_intent_is_read_is_done_not_abandoned(study, monkeypatch):
    """Between reading the results (none yet) and asking whether the intent's holder still
    holds it, the holder logs its result and lets go: the action is done, not resumed (a
    bonus recorded twice on PostgreSQL before this was read again)."""
    import harness.store.action_claims as action_claims

    engine, study_id = study
    finish = []

    def meanwhile(engine):
        asked = action_claims._in_progress

        def finished_first(session, other, reason, now):
            if not finish:
                finish.append(other.id)
                logged(engine, study_id, EventKind.BLOCKED, "screening h")  # the result...
                return False  # ...and the holder has let go
            return asked(session, other, reason, now)

        monkeypatch.setattr(action_claims, "_in_progress", finished_first)
        assert not claims(engine, study_id, "dashboard: blocked by hand")
        with session_scope(engine) as session:
            assert not finish_abandoned(session, study_id, *BLOCK, "W1", EventKind.UNBLOCKED)

    intents_then(engine, study_id, meanwhile)
    assert finish
    assert [k for k, _ in kinds(engine)] == [EventKind.BLOCK_INTENT, EventKind.BLOCKED]
