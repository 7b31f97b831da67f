"""A worker's arm (issue #18): given on first arrival by permuted blocks, balanced and seeded,
recorded once by the database (also when arrivals race), and the allocator keeps each worker to
their arm's HITs; on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import select

from harness.spec.arms import load_arms
from harness.store import create_study, session_scope
from harness.store.allocation import Allocation, Refusal
from harness.store.arm_assignment import (
    allocate_in_arm,
    arm_for_arrival,
    arrive_at_hit,
    assign_arm,
    assign_hits,
    mark_joined,
    out_of_arm,
    record_arm,
    record_arms,
    set_platform_refs,
    study_arms,
    unjoined,
)
from harness.store.arm_tables import WorkerArm, hit_arm
from harness.store.hits import add_planned_hits
from harness.store.instruments import freeze_instrument
from harness.store.models import Hit, Worker
from tests.clock import minutes_ago
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC, write_spec

T0 = minutes_ago()
HOLD = timedelta(minutes=30)
ARMS = "arms:\n  plain: {}\n  anchored:\n    scale: {labels: {0: unrelated, 10: identical}}\n"


def test_permuted_blocks_balance_every_block_and_repeat_for_a_seed():
    for k in (2, 3, 4):
        arms = [arm_for_arrival(7, k, n) for n in range(12 * k)]
        for block in range(12):
            assert sorted(arms[block * k : (block + 1) * k]) == list(range(k))
        assert arms == [arm_for_arrival(7, k, n) for n in range(12 * k)]
    runs = {tuple(arm_for_arrival(seed, 2, n) for n in range(20)) for seed in range(10)}
    assert len(runs) > 1  # the seed decides the order within blocks
    with pytest.raises(ValueError):
        arm_for_arrival(1, 0, 0)


@pytest.fixture
def study_id(engine, tmp_path):
    """A study of two arms, each with 2 HITs (items a, b | c, d) wanting 3 raters."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    armed = load_arms(write_spec(tmp_path, MINIMAL_RATING_SPEC + ARMS))
    with session_scope(engine) as session:
        study = create_study(session, armed.arms[0].loaded)
        showings = [["a", "b"], ["c", "d"]] * 2
        hits = add_planned_hits(session, study, showings, max_assignments=3)
        refs = record_arms(
            session,
            study.id,
            [(a.name, freeze_instrument(session, a.loaded).id) for a in armed.arms],
        )
        assign_hits(session, refs[0].id, [hits[0].id, hits[1].id])
        assign_hits(session, refs[1].id, [hits[2].id, hits[3].id])
        assign_hits(session, refs[1].id, [hits[2].id])  # idempotent
        return study.id


def _worker_id(session, name):
    from harness.store.submissions import worker_row

    return worker_row(session, name).id


def test_arms_are_recorded_once_and_a_changed_spec_is_refused(engine, study_id):
    from harness.errors import StoreError

    with session_scope(engine) as session:
        arms = study_arms(session, study_id)
        assert [a.name for a in arms] == ["plain", "anchored"]
        again = record_arms(session, study_id, [(a.name, a.instrument_id) for a in arms])
        assert again == arms
        with pytest.raises(StoreError, match="launched with another instrument"):
            record_arms(session, study_id, [("plain", arms[1].instrument_id), ("anchored", 1)])
        hits = session.exec(select(Hit).where(Hit.study_id == study_id).order_by(Hit.index))
        assert [hit_arm(session, h)[1] for h in hits] == [arms[0].instrument_id] * 2 + [
            arms[1].instrument_id
        ] * 2


def test_workers_get_arms_in_balanced_seeded_blocks_and_keep_them(engine, study_id):
    names = [f"W{i}" for i in range(10)]
    with session_scope(engine) as session:
        got = [assign_arm(session, study_id, _worker_id(session, n)).position for n in names]
    assert got == [arm_for_arrival(0, 2, n) for n in range(10)]  # the spec's order.seed: 0
    assert Counter(got) == {0: 5, 1: 5}
    with session_scope(engine) as session:  # a second arrival keeps the first arm
        again = [assign_arm(session, study_id, _worker_id(session, n)).position for n in names]
        assert again == got
        assert session.exec(select(sa.func.count()).select_from(WorkerArm)).one() == 10


def test_the_allocator_gives_each_worker_only_their_arms_hits(engine, study_id):
    seen: dict[str, set[int]] = {}
    for i in range(12):
        name = f"W{i}"
        with session_scope(engine) as session:
            got = allocate_in_arm(session, study_id, name, f"S{i}", hold=HOLD, now=T0)
            assert isinstance(got, Allocation), got
            arm = assign_arm(session, study_id, _worker_id(session, name)).position
        seen.setdefault(name, set()).add(got.hit_index)
        assert got.hit_index in ({0, 1} if arm == 0 else {2, 3})
    with session_scope(engine) as session:  # every place of both arms is taken
        full = allocate_in_arm(session, study_id, "late", "S99", hold=HOLD, now=T0)
    assert full.reason is Refusal.FULL


def test_two_processes_assigning_at_once_record_one_arm_per_worker(engine, study_id):
    """Threads with their own connections, without the study lock: the unique constraints
    alone keep one arm per worker and one worker per arrival number."""
    with session_scope(engine) as session:
        ids = [_worker_id(session, f"R{i}") for i in range(8)]
    results: list[tuple[int, int]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def run(order: list[int]) -> None:
        try:
            start.wait()
            for worker in order:
                with session_scope(engine) as session:
                    results.append((worker, assign_arm(session, study_id, worker).id))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(ids if t % 2 else ids[::-1],)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    with session_scope(engine) as session:
        rows = session.exec(select(WorkerArm).where(WorkerArm.study_id == study_id)).all()
        workers = session.exec(select(Worker.id)).all()
    assert len(rows) == 8 and len(set(workers)) == 8
    assert sorted(r.arrival for r in rows) == list(range(8))
    recorded = {r.worker_id: r.arm_id for r in rows}
    assert all(recorded[w] == arm for w, arm in results)  # every caller got the recorded arm
    assert Counter(recorded.values()).most_common()[0][1] == 4  # balanced: 4 and 4


def _hits(session, study_id):
    return {h.index: h.id for h in session.exec(select(Hit).where(Hit.study_id == study_id))}


def test_a_worker_arriving_at_a_hit_gets_an_arm_once_and_learns_whether_it_is_the_hits(
    engine, study_id
):
    """MTurk's external hosting: the arm is given at the first HIT a worker opens, whatever its
    arm; the same worker at any HIT later keeps it (balanced like any arrivals)."""
    with session_scope(engine) as session:
        hits = _hits(session, study_id)
        first = [arrive_at_hit(session, study_id, hits[0], f"A{i}") for i in range(6)]
    assert [a.worker.position for a in first] == [arm_for_arrival(0, 2, n) for n in range(6)]
    assert [a.in_arm for a in first] == [a.worker.position == 0 for a in first]
    assert not any(a.joined for a in first)
    with session_scope(engine) as session:
        later = [arrive_at_hit(session, study_id, hits[3], f"A{i}") for i in range(6)]
        assert [a.worker for a in later] == [a.worker for a in first]
        assert [a.in_arm for a in later] == [a.worker.position == 1 for a in first]
        assert session.exec(select(sa.func.count()).select_from(WorkerArm)).one() == 6
        # out of arm: the HIT is another arm's, or the worker has no arm (reads only)
        assert [out_of_arm(session, study_id, hits[0], f"A{i}") for i in range(6)] == [
            not a.in_arm for a in first
        ]
        assert out_of_arm(session, study_id, hits[0], "ANOBODY")
        assert (
            session.exec(select(Worker).where(Worker.platform_worker_id == "ANOBODY")).first()
            is None
        )


def test_an_arm_chosen_elsewhere_is_recorded_once_as_the_next_arrival(engine, study_id):
    """MTurk hosting: a worker's arm is the arm of the HIT they took first, recorded with the
    same constraints; a recorded arm is never changed."""
    with session_scope(engine) as session:
        plain, anchored = study_arms(session, study_id)
        one, two = _worker_id(session, "B1"), _worker_id(session, "B2")
        assert record_arm(session, study_id, one, anchored) == anchored
        assert record_arm(session, study_id, two, anchored) == anchored  # not balanced: chosen
        assert record_arm(session, study_id, one, plain) == anchored  # kept
        rows = session.exec(select(WorkerArm).order_by(WorkerArm.arrival)).all()
        assert [(r.worker_id, r.arrival) for r in rows] == [(one, 0), (two, 1)]


def test_workers_not_yet_told_their_arm_are_listed_until_marked(engine, study_id):
    with session_scope(engine) as session:
        plain, anchored = study_arms(session, study_id)
        for name in ("C1", "C2", "C3"):
            assign_arm(session, study_id, _worker_id(session, name))
        assert unjoined(session, study_id) == []  # arms without a group: nothing to tell
        set_platform_refs(session, plain.id, work_type_id="TYPE-P", group_ref="Q-PLAIN")
        set_platform_refs(session, anchored.id, group_ref="Q-ANCHORED")
    with session_scope(engine) as session:
        todo = unjoined(session, study_id)
        assert [w for w, _ in todo] == ["C1", "C2", "C3"]
        assert {a.group_ref for _, a in todo} == {"Q-PLAIN", "Q-ANCHORED"}
        mark_joined(session, study_id, "C2", now=T0)
        mark_joined(session, study_id, "C2")  # again: kept as first marked
        mark_joined(session, study_id, "CNOBODY")  # unknown: nothing
    with session_scope(engine) as session:
        assert [w for w, _ in unjoined(session, study_id)] == ["C1", "C3"]
        row = session.exec(
            select(WorkerArm).where(WorkerArm.worker_id == _worker_id(session, "C2"))
        ).one()
        when = row.joined_at  # SQLite gives back naive UTC
        assert (when if when.tzinfo else when.replace(tzinfo=UTC)) == T0
        assert study_arms(session, study_id)[0].work_type_id == "TYPE-P"
