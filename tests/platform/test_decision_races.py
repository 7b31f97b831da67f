"""Concurrent screening hooks (task-server threads and processes, a sync) carry out each
screening decision once: counted at the platform, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlmodel import select

from harness.answer import Answer
from harness.platform.registry import PLATFORMS
from harness.platform.submissions.after_submission import hook, run_after_submission
from harness.render.answers import encode_answers
from harness.render.instrument import Instrument
from harness.render.plan import hit_key, plan_hits
from harness.spec import load_spec
from harness.store import make_engine, session_scope
from harness.store.models import DecisionState, Event, EventKind, ScreeningDecision
from tests.clock import minutes_ago
from tests.platform.factories import harness_cli, small_spec, truths_of
from tests.providers.noop.platform import NOOP, NoopPlatform, NoopProvider

T0 = minutes_ago()
HOOKS = 10
BAD = {"W3", "W4"}  # answer 0 everywhere: fail the identical pair, no variance


@pytest.fixture
def noop(monkeypatch):
    monkeypatch.setitem(PLATFORMS, "noop", "tests.providers.noop.platform:NOOP")
    monkeypatch.setattr(NOOP, "world", NoopPlatform().world)
    return NOOP


@pytest.fixture
def platform_calls(monkeypatch):
    """Every reject, exclude and add_raters the no-op provider receives: (call, subject)."""
    calls: Counter[tuple[str, str]] = Counter()
    lock = threading.Lock()

    def counting(name, subject_of):
        original = getattr(NoopProvider, name)

        def call(self, *args, **kwargs):
            with lock:
                calls[(name, subject_of(args))] += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(NoopProvider, name, call)

    counting("reject", lambda args: args[0])
    counting("exclude", lambda args: args[1])
    counting("add_raters", lambda args: args[0])
    return calls


def _answers(loaded, plan, worker, truths):
    order = Instrument.from_loaded(loaded).page_order(
        plan, study_name=loaded.spec.study.name, worker_id=worker, hosting="external"
    )
    return [
        Answer(
            key,
            p,
            0.0 if worker in BAD else max(0.0, truths.get(key, 5.0) - p % 3),
            shown_at=T0 + timedelta(seconds=10 * p),
            answered_at=T0 + timedelta(seconds=10 * p + 4),
        )
        for p, key in enumerate(order)
    ]


def stored_study_unscreened(noop, database_url: str, directory) -> None:
    """Launch a small study on the no-op platform and store six assignments through the task
    pages (W3 and W4 answer 0 everywhere) with no screening: what a task server killed after
    storing and before screening leaves."""
    from harness.web import create_app
    from harness.web.tokens import token_in_page
    from tests.serving import until_rechecked

    spec = small_spec(
        directory,
        items=12,
        per_hit=4,
        raters=2,
        hosting="external",
        platform="{name: noop}",
        controls="{identical: {per_hit: 1, seed: 3}}",
        screening="{calibration_failure: {action: reject, threshold: 0}, "
        "low_variance: {action: block}}",
    )
    launched = harness_cli(
        "launch", str(spec), "--db", database_url, "--public-url", "http://tasks.test"
    )
    assert launched.exit_code == 0, launched.output
    loaded = load_spec(spec)
    truths = truths_of(loaded)
    app = create_app(database_url)  # stores only, screens nothing
    client = app.test_client()
    units = {u.label.rsplit("=", 1)[1]: u.platform_id for u in noop.world.units.values()}
    pairs = [("W1", "W3"), ("W2", "W4"), ("W4", "W1")]
    for plan, workers in zip(plan_hits(loaded), pairs, strict=True):
        for worker in workers:
            assignment = noop.accept(units[str(plan.index)], worker)
            key = hit_key("small", plan.index)
            page = client.get(f"/hit/{key}?assignmentId={assignment}&workerId={worker}")
            assert page.status_code == 200
            data = encode_answers(_answers(loaded, plan, worker, truths))
            data.update(
                assignmentId=assignment,
                workerId=worker,
                pageToken=token_in_page(page.get_data(as_text=True)),
            )
            stored = client.post(f"/hit/{key}/submit", data=data)
            assert stored.json["created"], stored.json
    until_rechecked(app)  # quarantined when posted, stored by the rechecks (the platform vouches)
    app.extensions["harness"].close()


def test_concurrent_screening_hooks_carry_out_each_decision_once(
    noop, platform_calls, database_url, tmp_path
):
    stored_study_unscreened(noop, database_url, tmp_path)
    engine = make_engine(database_url)
    try:
        barrier = threading.Barrier(HOOKS)

        def run(_: int) -> str | None:
            barrier.wait()
            return run_after_submission(engine, hook(True), 1)

        with ThreadPoolExecutor(HOOKS) as pool:
            failures = list(pool.map(run, range(HOOKS)))
        assert failures == [None] * HOOKS
        with session_scope(engine) as session:

            def events(kind):
                return session.exec(select(Event).where(Event.kind == kind)).all()

            decisions = session.exec(select(ScreeningDecision).where(ScreeningDecision.flag)).all()
            applied = Counter(e.payload["decision"] for e in events(EventKind.SCREENING_APPLIED))
            rejected = Counter(e.subject for e in events(EventKind.REJECTED))
            blocked = Counter(e.subject for e in events(EventKind.BLOCKED))
    finally:
        engine.dispose()
    assert decisions, "screening flagged nobody: the test shows nothing"
    assert {d.state for d in decisions} == {DecisionState.APPLIED}
    assert sorted(applied) == sorted(d.id for d in decisions)
    assert set(applied.values()) == {1}  # each decision marked applied once
    assert platform_calls, "no platform action: the test shows nothing"
    assert set(platform_calls.values()) == {1}, platform_calls  # each action done once
    assert set(rejected.values()) <= {1} and set(blocked.values()) <= {1}
    assert {s for (call, s) in platform_calls if call == "exclude"} == BAD
    assert len(rejected) == sum(1 for (call, _) in platform_calls if call == "reject")
