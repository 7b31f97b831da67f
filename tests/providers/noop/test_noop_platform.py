"""A new platform is a subpackage plus one registry line: the no-op platform (this folder)
runs a study end to end through the CLI (validate, launch, the task pages, sync, review,
status, expire) with no change anywhere else in harness."""

from __future__ import annotations

from datetime import timedelta

import pytest

from harness.answer import Answer
from harness.platform.registry import PLATFORMS
from harness.render.answers import encode_answers
from harness.render.instrument import Instrument
from harness.render.plan import hit_key, plan_hits
from harness.spec import load_spec
from harness.store import make_engine, session_scope, study_judgments
from harness.store.migrations import upgrade
from harness.web.tokens import token_in_page
from tests.clock import minutes_ago
from tests.platform.factories import harness_cli, small_spec
from tests.providers.noop.platform import NOOP, NoopPlatform
from tests.serving import until_rechecked

T0 = minutes_ago()


@pytest.fixture
def noop(monkeypatch):
    """The one registry line, and a fresh no-op world."""
    monkeypatch.setitem(PLATFORMS, "noop", "tests.providers.noop.platform:NOOP")
    monkeypatch.setattr(NOOP, "world", NoopPlatform().world)
    return NOOP


def _answers(loaded, plan, worker):
    order = Instrument.from_loaded(loaded).page_order(
        plan, study_name=loaded.spec.study.name, worker_id=worker, hosting="external"
    )
    return [
        Answer(
            key,
            p,
            7.0,
            shown_at=T0 + timedelta(seconds=10 * p),
            answered_at=T0 + timedelta(seconds=10 * p + 4),
        )
        for p, key in enumerate(order)
    ]


def test_a_study_runs_end_to_end_on_a_platform_added_by_one_registry_line(noop, tmp_path):
    from harness.web import create_app

    spec = small_spec(tmp_path, hosting="external", platform="{name: noop}")
    db = f"sqlite:///{tmp_path / 'h.db'}"
    checked = harness_cli("validate", str(spec))
    assert checked.exit_code == 0, checked.output
    assert "cost: $0.88 = $0.80 rewards + $0.08 Noop fees" in checked.output
    launched = harness_cli("launch", str(spec), "--db", db, "--public-url", "http://tasks.test")
    assert launched.exit_code == 0, launched.output
    assert "small: 4 tasks on noop (4 posted now" in launched.output
    assert [u.assignments for u in noop.world.units.values()] == [2, 2, 2, 2]

    loaded = load_spec(spec)
    upgrade(db)
    app = create_app(db)
    client = app.test_client()
    units = {u.label.rsplit("=", 1)[1]: u.platform_id for u in noop.world.units.values()}
    for plan in plan_hits(loaded):
        for worker in ("W1", "W2"):
            assignment = noop.accept(units[str(plan.index)], worker)
            key = hit_key("small", plan.index)
            page = client.get(f"/hit/{key}?assignmentId={assignment}&workerId={worker}")
            assert page.status_code == 200
            data = encode_answers(_answers(loaded, plan, worker))
            data.update(
                assignmentId=assignment,
                workerId=worker,
                pageToken=token_in_page(page.get_data(as_text=True)),
            )
            posted = client.post(f"/hit/{key}/submit", data=data).json
            # quarantined when posted; the rechecks ask the platform, which vouches
            assert posted["ok"] and posted["created"] and not posted["verified"], posted
    until_rechecked(app)
    app.extensions["harness"].close()

    synced = harness_cli("sync", "small", "--db", db)
    assert synced.exit_code == 0, synced.output
    assert "small: 4 HITs, 8 submitted assignments" in synced.output
    reviewed = harness_cli("review", "small", "--db", db)
    assert reviewed.exit_code == 0, reviewed.output
    assert reviewed.output.strip().endswith("small: approve 8")
    assert {s.state.value for s in noop.world.submissions.values()} == {"approved"}
    status = harness_cli("status", "small", "--db", db)
    assert "money: committed $0.88, spent $0.88" in status.output
    expired = harness_cli("expire", "small", "--db", db)
    assert expired.exit_code == 0 and "small: 4 HITs expired" in expired.output
    engine = make_engine(db)
    with session_scope(engine) as session:
        assert len(study_judgments(session, 1)) == 16
    engine.dispose()


def test_a_target_names_its_platform_and_an_unknown_one_lists_them(noop, tmp_path):
    spec = small_spec(tmp_path, hosting="external")
    result = harness_cli(
        "launch", str(spec), "--target", "noop", "--dry-run", "--public-url", "http://tasks.test"
    )
    assert result.exit_code == 0, result.output
    assert "study small on noop" in result.output
    assert '{"operation": "publish"' in result.output
    unknown = harness_cli("launch", str(spec), "--target", "elsewhere", "--dry-run")
    assert unknown.exit_code == 1
    assert (
        "unknown target 'elsewhere'; expected one of local, sandbox, production, link, "
        "prolific-local, prolific, noop"
    ) in unknown.output


def test_what_a_platform_cannot_run_is_a_spec_problem_with_its_line(noop, tmp_path):
    spec = small_spec(tmp_path, platform="{name: noop}")  # hosting: mturk
    result = harness_cli("validate", str(spec))
    assert result.exit_code == 1
    assert f"{spec}:12: hosting: the no-op platform shows only external pages" in result.output
