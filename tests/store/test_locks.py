"""The study's locks (`harness.store.locks`): holders of one lock of a study take turns until
their transaction ends, holding it does not stop other writes to the store (on SQLite the
database's one write lock is not taken), the places lock is apart from the study's lock, and
they are taken in one order (the study's first) and, on SQLite, before the transaction writes;
on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time

import pytest
from sqlmodel import select

from harness.store import session_scope
from harness.store.locks import LockAfterWriteWarning, LockOrderError, lock_places, lock_study
from harness.store.models import Worker
from tests.factories import migrated_sqlite
from tests.web.factories import plan_study, write_task_spec


def test_holders_of_a_study_lock_take_turns_and_other_writes_go_on(engine, tmp_path):
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    order: list[str] = []
    held = threading.Event()

    def second() -> None:
        held.wait()
        with session_scope(engine) as session:
            lock_study(session, 1)
            order.append("second has it")

    thread = threading.Thread(target=second)
    thread.start()
    with session_scope(engine) as session:
        lock_study(session, 1)
        held.set()
        with session_scope(engine) as other:  # a submission meanwhile: not held up
            other.add(Worker(platform_worker_id="W-meanwhile"))
        order.append("other write done")
        time.sleep(0.3)
        order.append("first releases")
    thread.join(timeout=120)
    assert order == ["other write done", "first releases", "second has it"]
    with session_scope(engine) as session:
        assert session.exec(select(Worker.platform_worker_id)).all() == ["W-meanwhile"]


def test_a_lock_is_released_by_a_rollback(engine, tmp_path):
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    try:
        with session_scope(engine) as session:
            lock_study(session, 1)
            raise RuntimeError("the work failed")
    except RuntimeError:
        pass
    done = threading.Event()

    def take() -> None:
        with session_scope(engine) as session:
            lock_study(session, 1)
        done.set()

    threading.Thread(target=take).start()
    assert done.wait(timeout=120)


def test_a_holder_taking_the_lock_again_goes_on_and_releases_it_once(engine, tmp_path):
    # allocation inside an arm's assignment takes the lock twice in one transaction
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    done = threading.Event()

    def twice() -> None:
        with session_scope(engine) as session:
            lock_study(session, 1)
            lock_study(session, 1)
        done.set()

    thread = threading.Thread(target=twice, daemon=True)
    thread.start()
    assert done.wait(timeout=120), "the second take waited for the first"
    with session_scope(engine) as session:  # released at the end: another can take it
        lock_study(session, 1)


def test_the_places_lock_is_apart_from_the_study_lock_and_its_holders_take_turns(engine, tmp_path):
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    order: list[str] = []
    held = threading.Event()

    def arrival() -> None:
        held.wait()
        with session_scope(engine) as session:
            lock_places(session, 1)
            order.append("second arrival")

    thread = threading.Thread(target=arrival)
    thread.start()
    with session_scope(engine) as screening:
        lock_study(screening, 1)  # a screening pass holds the study's lock meanwhile
        with session_scope(engine) as first:
            lock_places(first, 1)  # not held up by screening
            order.append("first arrival")
            held.set()
            time.sleep(0.3)
            order.append("first arrival commits")
        thread.join(timeout=120)
    assert order == ["first arrival", "first arrival commits", "second arrival"]


def test_the_study_lock_is_refused_to_a_holder_of_the_places_lock(engine, tmp_path):
    """Study first, places second: a pause holds the study's lock and waits for the places
    lock, so an arrival waiting for the study's lock while holding the places lock would wait
    for ever."""
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    with session_scope(engine) as session:
        lock_study(session, 1)
        lock_places(session, 1)  # the order of a pause
        lock_study(session, 1)  # held already: nothing to wait for
    with session_scope(engine) as session, pytest.raises(LockOrderError, match="first"):
        lock_places(session, 1)
        lock_study(session, 1)
    with session_scope(engine) as session:  # a new transaction holds neither
        lock_study(session, 1)


def test_a_sqlite_lock_taken_after_the_transaction_wrote_is_warned_of(tmp_path):
    """A writer waiting for a lock file whose holder waits to write would wait for ever."""
    from harness.store import make_engine

    engine = make_engine(migrated_sqlite(tmp_path / "h.db"))
    plan_study(engine, write_task_spec(tmp_path, "rating"))
    with session_scope(engine) as session:
        lock_places(session, 1)  # first: nothing to warn of
        session.add(Worker(platform_worker_id="W-first"))
    with session_scope(engine) as session:
        session.add(Worker(platform_worker_id="W-then"))
        session.flush()
        with pytest.warns(LockAfterWriteWarning, match="take it first"):
            lock_places(session, 1)
    engine.dispose()
