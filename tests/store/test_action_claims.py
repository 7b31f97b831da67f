"""Claiming a platform action: done once, another process's recent intent means later, and an
undone action (a block lifted by an unblock) may be done again."""

from __future__ import annotations

import pytest

from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope
from harness.store.action_claims import ActionInProgress, begin_action
from harness.store.events import record_event
from harness.store.models import EventKind
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
