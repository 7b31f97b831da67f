"""Live screening: decisions stored as assignments arrive, on SQLite and PostgreSQL.

A WS353 reproduction study is stored assignment by assignment from a simulated crowd (careful
workers, one backwards worker, one spammer); `screen_pending` runs after each is committed.
Within each HIT the careful workers come first, so every bad worker's first assignment already
has other raters to be compared with.
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest
import sqlalchemy as sa
from sqlmodel import col, select

from harness.datasets import load_ws353
from harness.screening import screen_workers
from harness.screening.correlation import low_correlation_assignments
from harness.screening.live import forget_states, screen_pending
from harness.screening.stored import study_context
from harness.simulate import Crowd, simulate_judgments
from harness.simulate.stored import store_assignments
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope, study_judgments
from harness.store.decisions import pending_decisions
from harness.store.models import Assignment, DecisionState, Event, ScreeningDecision, Worker
from tests.factories import TASK_SPECS, WS353_DIR

SPEC = TASK_SPECS / "ws353_reproduction.yaml"
MIX = {"careful": 6, "backwards": 1, "spammer": 1}


def _crowd_table() -> pd.DataFrame:
    """90 WS353 items in 3 HITs of 30, 8 raters each; per HIT, careful workers first (a copy
    of the one table, simulated once per process)."""
    return _simulated_crowd_table().copy()


@functools.cache
def _simulated_crowd_table() -> pd.DataFrame:
    loaded = load_spec(SPEC)
    truths = load_ws353(WS353_DIR).judgments.groupby("item_id")["value"].mean().iloc[:90]
    table = simulate_judgments(truths, loaded.scale, Crowd(MIX, size=8, seed=5), 8, 30, seed=5)
    table["hit"] = table["assignment_id"].str.rsplit("-", n=1).str[0]
    table["bad"] = table["true_archetype"] != "careful"
    return table.sort_values(["hit", "bad", "assignment_id", "position"], kind="stable")


@pytest.fixture
def engine(database_url):
    forget_states()
    engine = make_engine(database_url)
    yield engine
    engine.dispose()
    forget_states()


@pytest.fixture
def crowd_run(store_copy):
    """The crowd's study stored and screened assignment by assignment (`_run_study` of
    `_crowd_table()`), run once per backend and test process and copied for each test (a test
    may write to its copy, `store_copy`): an engine on the copy, the study, and what each
    screening returned. The live screening's cache starts empty, as in a process that did not
    do the screening."""

    def build(url, _folder):
        forget_states()
        engine = make_engine(url)
        try:
            return _run_study(engine, _crowd_table())
        finally:
            engine.dispose()
            forget_states()

    copy, (study, returned) = store_copy("live-crowd", build)
    engine = make_engine(copy)
    try:
        yield engine, study, returned
    finally:
        engine.dispose()
        forget_states()


def _run_study(engine, table):
    """Store and screen every assignment; the decisions each screening returned, in order."""
    returned: list[tuple[str, str, list[ScreeningDecision]]] = []
    with session_scope(engine) as session:
        study = create_study(session, load_spec(SPEC))
    for name, part in table.groupby("assignment_id", sort=False):
        with session_scope(engine) as session:
            list(store_assignments(session, study, part.drop(columns=["hit", "bad"])))
        decisions = screen_pending(engine, study.id)
        returned.append((str(name), str(part["true_archetype"].iloc[0]), decisions))
    return study, returned


def _names(session) -> dict[int, str]:
    return {w.id: w.platform_worker_id for w in session.exec(select(Worker)).all()}


def test_a_backwards_worker_is_flagged_right_after_their_first_assignment(crowd_run):
    _engine, _study, returned = crowd_run
    first = next(d for _, kind, d in returned if kind == "backwards")
    h8 = [d for d in first if d.heuristic == "consensus_correlation"]
    assert len(h8) == 1 and h8[0].flag and h8[0].score < -0.3
    assert h8[0].details["label"] == "backwards" and h8[0].details["change"] == "raised"
    assert h8[0].details["rho"] < -0.3  # the leave-one-out Spearman rho, for the report
    assert h8[0].action == "block" and h8[0].state is DecisionState.PENDING
    assert h8[0].threshold == pytest.approx(0.3) and h8[0].evidence >= 5
    spam = next(d for _, kind, d in returned if kind == "spammer")
    assert {d.heuristic for d in spam if d.flag} >= {"consensus_correlation", "quick"}


def test_careful_workers_are_never_flagged_by_a_blocking_heuristic(crowd_run):
    engine, _, returned = crowd_run
    with session_scope(engine) as session:
        names = _names(session)
    truth = _crowd_table().groupby("worker_id")["true_archetype"].first()
    raised = [d for _, _, ds in returned for d in ds if d.flag and d.action != "report"]
    assert raised, "the bad workers should have been flagged"
    assert all(truth[names[d.worker_id]] != "careful" for d in raised)


@pytest.mark.slow
def test_screening_twice_or_from_a_fresh_process_stores_nothing_new(engine):
    study, returned = _run_study(engine, _crowd_table())
    with session_scope(engine) as session:
        stored = session.exec(select(ScreeningDecision)).all()
        events = session.exec(select(Event).where(Event.kind == "screening.decision")).all()
        assert len(stored) == sum(len(d) for _, _, d in returned) > 0
        assert sorted(e.payload["decision"] for e in events) == sorted(d.id for d in stored)
    for fresh in (False, True):
        if fresh:
            forget_states()  # as a new process: the state is rebuilt from the store
        assert screen_pending(engine, study.id) == []  # nothing new to screen
        with session_scope(engine) as session:  # screen every assignment again
            session.execute(sa.update(Assignment).values(screened_at=None))
        assert screen_pending(engine, study.id) == []  # no flag changed: nothing stored
    with session_scope(engine) as session:
        assert len(session.exec(select(ScreeningDecision)).all()) == len(stored)


def test_live_flags_end_as_the_batch_screening_of_the_stored_study(crowd_run):
    engine, study, _ = crowd_run
    with session_scope(engine) as session:
        names = _names(session)
        last: dict[tuple[str, str], bool] = {}
        query = select(ScreeningDecision).order_by(col(ScreeningDecision.id))
        for decision in session.exec(query).all():
            last[(names[decision.worker_id], decision.heuristic)] = decision.flag
        context = study_context(session, study)
        report = screen_workers(study_judgments(session, study.id), context, list(context.policy))
    for key, frame in report.results.items():
        for worker, flag in zip(frame["worker_id"], frame["flag"], strict=True):
            assert last.get((worker, key), False) == bool(flag), (worker, key)


def test_pending_decisions_are_the_unapplied_raised_flags_that_act(crowd_run):
    engine, study, _ = crowd_run
    with session_scope(engine) as session:
        pending = pending_decisions(session, study.id)
        assert pending and all(d.flag and d.action != "report" for d in pending)
        every = session.exec(select(ScreeningDecision)).all()
        acting = [d for d in every if d.flag and d.action != "report"]
        assert [d.id for d in pending] == sorted(d.id for d in acting)
        assert any(d.action == "report" and d.flag for d in every)  # quick: reported only
        pending[0].state = DecisionState.APPLIED
        session.add(pending[0])
    with session_scope(engine) as session:
        assert [d.id for d in pending_decisions(session, study.id)] == [d.id for d in pending[1:]]


def _control_row(worker: str, assignment: str, value: float, pair: int = 1) -> dict[str, object]:
    """One answer on identical pair ``pair`` (expected: the scale maximum, 10), in
    ``assignment``."""
    return {
        "item_id": f"identical-{pair:03d}",
        "worker_id": worker,
        "value": value,
        "skipped": False,
        "assignment_id": assignment,
        "position": 99,
        "seconds": 5.0,
        "role": "identical",
        "true_archetype": "careful",
        "hit": assignment.rsplit("-", 1)[0],
        "bad": False,
    }


@pytest.mark.slow
def test_a_failed_calibration_is_reported_and_never_pending(engine):
    table = _crowd_table()
    first = table.iloc[0]
    # H10's default needs four checks (more than a third failed): four identical pairs at 2
    failed = [_control_row(first["worker_id"], first["assignment_id"], 2.0, k) for k in range(1, 5)]
    table = pd.concat([table.iloc[:1], pd.DataFrame(failed), table.iloc[1:]], ignore_index=True)
    study, returned = _run_study(engine, table)
    h10 = [d for d in returned[0][2] if d.heuristic == "calibration_failure"]
    assert len(h10) == 1 and h10[0].flag and h10[0].action == "report"
    assert h10[0].details["failures"] == 4.0 and h10[0].evidence == 4
    with session_scope(engine) as session:
        assert all(
            d.heuristic != "calibration_failure" for d in pending_decisions(session, study.id)
        )


def test_an_assignment_of_controls_only_is_screened_on_its_own_answers(engine):
    table = pd.DataFrame(
        [_control_row("w001", "a000-01", 10.0, k) for k in range(1, 5)]
        + [_control_row("w002", "a000-02", 0.0, k) for k in range(1, 5)]
    )
    study, returned = _run_study(engine, table)
    assert returned[0][2] == []  # a passed calibration check raises nothing
    (decision,) = returned[1][2]
    assert decision.heuristic == "calibration_failure" and decision.flag


def test_a_simulated_study_is_stored_as_hits_assignments_and_judgments(crowd_run):
    from harness.store.models import Assignment, Hit

    table = _crowd_table()
    engine, study, _ = crowd_run
    with session_scope(engine) as session:
        hits = session.exec(select(Hit).where(Hit.study_id == study.id)).all()
        assert sorted(h.platform_hit_id for h in hits) == [f"{study.id}-a00{i}" for i in (1, 2, 3)]
        assert {h.max_assignments for h in hits} == {13}  # the spec's raters_per_item
        assert all(len(h.items) == 30 for h in hits)
        assert len(session.exec(select(Assignment)).all()) == 24
        stored = study_judgments(session, study.id)
    assert len(stored) == len(table)
    assert set(stored["worker_id"]) == set(table["worker_id"])


def test_a_flag_raised_and_since_cleared_is_not_pending(crowd_run):
    engine, study, _ = crowd_run
    with session_scope(engine) as session:
        first = pending_decisions(session, study.id)[0]
        cleared = ScreeningDecision(
            study_id=study.id,
            worker_id=first.worker_id,
            assignment_id=first.assignment_id,
            heuristic=first.heuristic,
            flag=False,
            action=first.action,
            details={"change": "cleared"},
        )
        session.add(cleared)
    with session_scope(engine) as session:
        assert first.id not in [d.id for d in pending_decisions(session, study.id)]


def _with_careless_assignments(table: pd.DataFrame, count: int = 2) -> tuple[pd.DataFrame, set]:
    """``table`` with one assignment of each of ``count`` careful workers answered carelessly
    (the scale read backwards on that HIT's items), and those assignments."""
    careful = sorted(table.loc[table["true_archetype"] == "careful", "worker_id"].unique())
    table = table.copy()
    careless = set()
    for n, worker in enumerate(careful[:count]):
        assignments = sorted(table.loc[table["worker_id"] == worker, "assignment_id"].unique())
        chosen = assignments[n % len(assignments)]  # a different HIT each
        rows = (table["assignment_id"] == chosen) & (table["role"] == "item")
        table.loc[rows, "value"] = 10.0 - table.loc[rows, "value"]  # WS353's scale: 0-10
        careless.add(chosen)
    return table, careless


@pytest.mark.slow
def test_live_screening_judges_h7_per_assignment_as_batch_screening_does(engine):
    table, careless = _with_careless_assignments(_crowd_table())
    study, _ = _run_study(engine, table)
    with session_scope(engine) as session:
        names = _names(session)
        aids = {a.id: a.platform_assignment_id for a in session.exec(select(Assignment)).all()}
        live: dict[tuple[str, str], bool] = {}
        query = select(ScreeningDecision).where(ScreeningDecision.heuristic == "low_correlation")
        decisions = session.exec(query.order_by(col(ScreeningDecision.id))).all()
        for decision in decisions:
            live[(names[decision.worker_id], aids[decision.assignment_id])] = decision.flag
        judgments = study_judgments(session, study.id)
        context = study_context(session, study).fitted_to(judgments)
        pending = pending_decisions(session, study.id)
    batch = low_correlation_assignments(judgments, context)
    assert len(batch) == 24  # every assignment judged
    careless = {f"{study.id}-{a}" for a in careless}  # as the store names them
    for worker, unit, flag in zip(batch["worker_id"], batch["unit"], batch["flag"], strict=True):
        assert live.get((worker, unit), False) == bool(flag), (worker, unit)
    failing = {unit for unit, flag in zip(batch["unit"], batch["flag"], strict=True) if flag}
    assert careless <= failing  # each careless assignment fails H7 ...
    careless_workers = {w for (w, a), f in live.items() if a in careless}
    assert not {a for (w, a), f in live.items() if f and w in careless_workers} - careless
    # ... and only it: the same workers' careful assignments pass
    h7 = {aids[d.assignment_id] for d in pending if d.heuristic == "low_correlation"}
    assert h7 == failing  # a decision per failing assignment, naming it


def _outcome(session, study_id: int) -> tuple[dict[tuple, bool], set[tuple]]:
    """A study's latest flag per (worker, heuristic, assignment), and its pending decisions,
    by the names the simulation gave (the store prefixes assignments with the study's id)."""
    names = _names(session)
    aids = {
        a.id: a.platform_assignment_id.split("-", 1)[1] for a in session.exec(select(Assignment))
    }
    query = select(ScreeningDecision).where(ScreeningDecision.study_id == study_id)
    latest: dict[tuple, bool] = {}
    for d in session.exec(query.order_by(col(ScreeningDecision.id))).all():
        latest[(names[d.worker_id], d.heuristic, aids.get(d.assignment_id))] = d.flag
    pending = {
        (names[d.worker_id], d.heuristic, aids.get(d.assignment_id), d.action)
        for d in pending_decisions(session, study_id)
    }
    return latest, pending


def test_one_screening_pass_per_batch_of_arrivals_decides_as_one_per_assignment(crowd_run):
    """What a task server does under a burst (one pass over everything stored since the last,
    `harness.platform.submissions.background`) ends with the flags and pending decisions of
    screening each assignment as it arrives, with fewer decisions along the way."""
    table = _crowd_table()
    engine, one_by_one, _ = crowd_run
    with session_scope(engine) as session:
        batched = create_study(session, load_spec(SPEC), name="batched")
    parts = [p.drop(columns=["hit", "bad"]) for _, p in table.groupby("assignment_id", sort=False)]
    passes = 0
    for start in range(0, len(parts), 5):  # five assignments arrive between two passes
        with session_scope(engine) as session:
            for part in parts[start : start + 5]:
                list(store_assignments(session, batched, part))
        screen_pending(engine, batched.id)
        passes += 1
    assert passes < len(parts)
    with session_scope(engine) as session:
        expected = _outcome(session, one_by_one.id)
        got = _outcome(session, batched.id)
        unscreened = session.exec(
            select(Assignment.id).where(Assignment.screened_at.is_(None))  # type: ignore[union-attr]
        ).all()
    assert got == expected
    assert any(flag for flag in expected[0].values()) and expected[1]  # something to decide
    assert unscreened == []
