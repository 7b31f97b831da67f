"""A study with arms behind a study link, through the real CLI and task server (issue #18):
one launch, every arm's HITs, each participant kept to one arm and shown that arm's page,
answers stored under the arm's instrument, every item rated by the raters per item in every
arm."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from sqlmodel import select

from harness.cli import main
from harness.render.answers import encode_answers
from harness.spec.arms import load_arms
from harness.store import make_engine, session_scope, study_judgments
from harness.store.arm_assignment import study_arms, worker_arm
from harness.store.models import Worker
from harness.web.tokens import token_in_page
from tests.platform.factories import harness_cli, small_spec
from tests.providers.link.test_link_platform import _answers, _client

ARMS = {
    "arms": "\n  long: {}\n  short:\n    guidelines: {text: Similar words score high.}",
}
LONG = "Rate how similar the two words are."
SHORT = "Similar words score high."


@pytest.fixture
def launched(tmp_path):
    spec = small_spec(tmp_path, items=4, hosting="external", **ARMS)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    result = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://tasks.test"
    )
    assert result.exit_code == 0, result.output
    return spec, db, result.output


def test_launch_plans_every_arms_hits_in_one_study(launched):
    _spec, _db, output = launched
    assert "2 arms: long (2 HITs, instrument " in output
    assert ", short (2 HITs, instrument " in output
    assert "small: 4 HITs on link in 2 arms (4 posted now, 0 posted before)" in output
    assert "study URL: http://tasks.test/p/small" in output


def test_a_dry_run_of_a_spec_with_arms_sends_nothing(tmp_path):
    spec = small_spec(tmp_path, items=4, hosting="external", **ARMS)
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "link",
        "--dry-run",
        "--public-url",
        "http://tasks.test",
        "--db",
        f"sqlite:///{tmp_path / 'none.db'}",
    )
    assert result.exit_code == 0, result.output
    assert "(dry run: nothing sent)" in result.output
    assert not (tmp_path / "none.db").exists()


def test_a_platform_that_cannot_keep_a_worker_to_one_arm_refuses_a_study_with_arms(
    tmp_path, monkeypatch
):
    from harness.platform.registry import PLATFORMS
    from tests.providers.noop.platform import NOOP, NoopPlatform

    monkeypatch.setitem(PLATFORMS, "noop", "tests.providers.noop.platform:NOOP")
    monkeypatch.setattr(NOOP, "world", NoopPlatform().world)
    spec = small_spec(tmp_path, items=4, hosting="external", platform="{name: noop}", **ARMS)
    result = harness_cli("launch", str(spec), "--dry-run", "--public-url", "http://tasks.test")
    assert result.exit_code == 1
    assert (
        "a study with arms runs on a platform with places (link, prolific) or on MTurk, "
        "not on noop: Noop has no way to keep a worker to one arm" in result.output
    )


def test_a_dry_run_of_a_study_with_arms_on_mturk_plans_every_arm(tmp_path):
    spec = small_spec(tmp_path, items=4, hosting="external", **ARMS)
    result = harness_cli(
        "launch", str(spec), "--target", "local", "--dry-run", "--public-url", "http://tasks.test"
    )
    assert result.exit_code == 0, result.output
    assert "2 arms: long (2 HITs, instrument " in result.output
    assert "(dry run: nothing sent)" in result.output


def _do_one(client, db, armed, worker):
    arrived = client.get(f"/p/small?participant={worker}")
    assert arrived.status_code == 303, arrived.get_data(as_text=True)
    page_url = arrived.headers["Location"]
    ref = page_url.rsplit("/", 1)[1]
    page = client.get(page_url).get_data(as_text=True)
    engine = make_engine(db)
    with session_scope(engine) as session:
        from harness.store.models import Hit, Slot

        slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
        hit = session.get(Hit, slot.hit_id)
        index, items = hit.index, list(hit.items)
        w = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).one()
        arm = worker_arm(session, slot.study_id, w.id).name
    engine.dispose()
    answers = _answers(armed.arm(arm).loaded, items, index, worker)
    data = encode_answers(answers) | {
        "workerId": worker,
        "assignmentId": ref,
        "pageToken": token_in_page(page),
    }
    posted = client.post(f"{page_url}/submit", data=data)
    assert posted.status_code == 200, posted.get_data(as_text=True)
    return arm, index, page


def test_participants_stay_in_their_arm_see_its_page_and_fill_every_arm(launched):
    spec, db, _output = launched
    armed = load_arms(spec)
    app, client = _client(db)
    arms_of: dict[str, set[str]] = {}
    for worker in ("P1", "P2", "P3", "P4"):
        for _ in range(2):  # 2 HITs per arm: each participant can do both of their arm's
            arm, index, page = _do_one(client, db, armed, worker)
            arms_of.setdefault(worker, set()).add(arm)
            assert index in ({0, 1} if arm == "long" else {2, 3})
            assert (LONG in page) == (arm == "long") and (SHORT in page) == (arm == "short")
    assert all(len(a) == 1 for a in arms_of.values())  # nobody changed arm
    assert sorted(a for s in arms_of.values() for a in s) == ["long", "long", "short", "short"]
    full = client.get("/p/small?participant=P5")
    assert "There is no work left" in full.get_data(as_text=True)
    app.extensions["harness"].close()
    status = harness_cli("status", "small", "--db", db)  # raters counted per item and arm
    assert "raters per item (target 2): min 2, median 2, max 2; 8 of 8 items at target" in (
        status.output
    )
    engine = make_engine(db)
    with session_scope(engine) as session:
        table = study_judgments(session, 1)
        arms = {a.instrument_id: a.name for a in study_arms(session, 1)}
    engine.dispose()
    table = table[table["role"] == "item"]
    by_arm = table.groupby(["instrument_hash", "item_id"])["worker_id"].nunique()
    assert len(by_arm) == 8 and set(by_arm) == {2}  # 4 items x 2 arms, 2 raters each
    assert len(arms) == 2 and table["instrument_hash"].nunique() == 2


def _fill(client, db, armed, workers, value):
    """Every worker does every HIT of their arm, answering ``value(item, worker, arm)``."""
    for worker in workers:
        while True:
            arrived = client.get(f"/p/small?participant={worker}")
            if arrived.status_code != 303:
                break
            page_url = arrived.headers["Location"]
            ref = page_url.rsplit("/", 1)[1]
            page = client.get(page_url).get_data(as_text=True)
            engine = make_engine(db)
            with session_scope(engine) as session:
                from harness.store.models import Hit, Slot

                slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
                hit = session.get(Hit, slot.hit_id)
                index, items = hit.index, list(hit.items)
                w = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).one()
                arm = worker_arm(session, slot.study_id, w.id).name
            engine.dispose()
            answers = [
                replace(a, value=value(a.item_key, worker, arm))
                for a in _answers(armed.arm(arm).loaded, items, index, worker)
            ]
            data = encode_answers(answers) | {
                "workerId": worker,
                "assignmentId": ref,
                "pageToken": token_in_page(page),
            }
            assert client.post(f"{page_url}/submit", data=data).status_code == 200


@pytest.mark.slow
def test_compare_arms_reads_the_stored_study_and_tells_a_noisy_arm_apart(tmp_path):
    spec = small_spec(tmp_path, items=16, per_hit=4, raters=3, hosting="external", **ARMS)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    launched = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://tasks.test"
    )
    assert launched.exit_code == 0, launched.output
    armed = load_arms(spec)
    app, client = _client(db)
    rng = np.random.default_rng(0)
    truth = {f"p{i:02d}": float(rng.integers(1, 10)) for i in range(16)}
    noise = {"long": 0.4, "short": 3.0}

    def value(item, worker, arm):
        return float(np.clip(round(truth[item] + rng.normal(0, noise[arm])), 0, 10))

    _fill(client, db, armed, [f"W{i}" for i in range(6)], value)
    app.extensions["harness"].close()
    result = harness_cli("compare-arms", "small", "--db", db, "--bootstrap", "300")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "study small: 2 arms, interval alpha, 16 items compared; 95% intervals each arm's from "
        "300 resamples of items, differences from 1000 relabelings of workers; seed 0"
    )
    assert lines[2].split()[:3] == ["long", "3", "3.0"]  # 3 workers, 3 raters per item
    assert "against long (the base):" in lines
    # 3 workers per arm allow only 20 splits: the relabeling test cannot reach 95%, and says so
    assert any(
        line.startswith("  arms short and long are not distinguishable")
        and "too few workers to tell arms apart by relabeling" in line
        for line in lines
    )
    as_json = json.loads(
        harness_cli("compare-arms", "small", "--db", db, "--bootstrap", "50", "--json").output
    )
    assert [a["arm"] for a in as_json["arms"]] == ["long", "short"]
    assert as_json["arms"][0]["screened_share"] == 0.0
    assert as_json["difference_method"] == "relabel"
    narrower = harness_cli(
        "compare-arms", "small", "--db", db, "--bootstrap", "50", "--difference", "items"
    )
    assert "intervals from 50 resamples of items; seed 0" in narrower.output.splitlines()[0]
    assert any(
        line.startswith("  arm short is less reliable than long: difference -0.")
        for line in narrower.output.splitlines()
    )
    assert as_json["arms"][0]["alpha"] > as_json["arms"][1]["alpha"]
    # $0.10 per assignment of 4 items: $0.025 per judgment; Spearman-Brown to reliability 0.8
    long = as_json["arms"][0]
    judgments = 0.8 * (1 - long["alpha"]) / (long["alpha"] * 0.2)
    assert long["cost_reliable"] == pytest.approx(judgments * 0.025)


def test_compare_arms_on_a_study_without_arms_says_what_to_do(tmp_path):
    spec = small_spec(tmp_path, items=4, hosting="external")
    db = f"sqlite:///{tmp_path / 'h.db'}"
    harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://tasks.test"
    )
    result = CliRunner().invoke(main, ["compare-arms", "small", "--db", db])
    assert result.exit_code == 1
    assert (
        "study 'small' has no arms; a study with arms is launched from a spec with an "
        "`arms:` section (docs/arms.md)" in result.output
    )
