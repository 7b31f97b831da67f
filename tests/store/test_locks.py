"""The study lock (`harness.store.locks.lock_study`): holders of one study take turns until
their transaction ends, and holding it does not stop other writes to the store (on SQLite the
database's one write lock is not taken), on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time

from sqlmodel import select

from harness.store import session_scope
from harness.store.locks import lock_study
from harness.store.models import Worker
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
    thread.join(timeout=30)
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
    assert done.wait(timeout=10)


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
    assert done.wait(timeout=10), "the second take waited for the first"
    with session_scope(engine) as session:  # released at the end: another can take it
        lock_study(session, 1)
