"""Live screening decides on H11-H13 as assignments arrive, and ends where batch screening does.

A WS353 reproduction whose policy blocks on H11 (given the bundled MiniLM system), H12 and H13
is stored assignment by assignment from a simulated crowd: careful workers first within each
HIT, then two model-assisted workers answering the other MiniLM variant (not given to H11) and
one bot. `screen_pending` runs after each assignment is committed.
"""

from __future__ import annotations

import pandas as pd
import pytest
from sqlmodel import col, select

from harness.datasets import load_ws353
from harness.datasets.systems import read_system_refs
from harness.datasets.ws353_systems import bundled_systems_dir
from harness.screening import screen_workers
from harness.screening.live import forget_states, screen_pending
from harness.screening.stored import study_context
from harness.simulate import Crowd, simulate_judgments
from harness.simulate.machine import machine_answers
from harness.simulate.stored import store_assignments
from harness.spec import load_spec
from harness.store import create_study, make_engine, session_scope, study_judgments
from harness.store.models import ScreeningDecision, Worker
from tests.factories import TASK_SPECS, WS353_DIR

MACHINE_POLICY = """\
screening:
  low_variance: {action: block}
  consensus_correlation: {action: block}
  machine_agreement: {action: block, references: [REFERENCE]}
  hidden_answers: {action: block}
  steady_timing: {action: block}
"""


def _spec(tmp_path):
    """The spec beside its reference, named relatively: the store freezes the file's path."""
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "minilm.csv").write_bytes(
        (bundled_systems_dir() / "minilm.csv").read_bytes()
    )
    text = (TASK_SPECS / "ws353_reproduction.yaml").read_text()
    text = text.replace(
        "file: guidelines/ws353.txt", f"file: {TASK_SPECS / 'guidelines/ws353.txt'}"
    )
    text = (
        text[: text.index("screening:")]
        + MACHINE_POLICY.replace("REFERENCE", "refs/minilm.csv")
        + 'budget: "200.00"\n'
    )
    path = tmp_path / "machine.yaml"
    path.write_text(text)
    return load_spec(path)


def _table(loaded) -> pd.DataFrame:
    ws353 = load_ws353(WS353_DIR)
    truths = ws353.judgments.groupby("item_id")["value"].mean().iloc[:90]
    systems, _ = read_system_refs(["ws353"], lambda: ws353.items)
    machine = machine_answers(systems["minilm_frame"], truths, loaded.scale)
    crowd = Crowd({"careful": 6, "model_assisted": 2, "bot": 1}, size=9, seed=4)
    table = simulate_judgments(truths, loaded.scale, crowd, 9, 30, seed=4, machine=machine)
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


@pytest.mark.slow
def test_machine_workers_are_flagged_live_as_batch_screening_flags_them(engine, tmp_path):
    loaded = _spec(tmp_path)
    table = _table(loaded)
    with session_scope(engine) as session:
        study = create_study(session, loaded)
    for _, part in table.groupby("assignment_id", sort=False):
        with session_scope(engine) as session:
            list(store_assignments(session, study, part.drop(columns=["hit", "bad"])))
        screen_pending(engine, study.id)
    truth = table.groupby("worker_id")["true_archetype"].first()
    with session_scope(engine) as session:
        names = {w.id: w.platform_worker_id for w in session.exec(select(Worker)).all()}
        last: dict[tuple[str, str], bool] = {}
        query = select(ScreeningDecision).order_by(col(ScreeningDecision.id))
        decisions = session.exec(query).all()
        for decision in decisions:
            last[(names[decision.worker_id], decision.heuristic)] = decision.flag
        context = study_context(session, study)
        stored = study_judgments(session, study.id)
    assert set(context.references) == {"minilm"}
    report = screen_workers(stored, context, list(context.policy))
    for key, frame in report.results.items():
        for worker, flag in zip(frame["worker_id"], frame["flag"], strict=True):
            assert last.get((worker, key), False) == bool(flag), (worker, key)
    flagged = {w for (w, key), flag in last.items() if flag}
    assert flagged == set(truth[truth != "careful"].index)
    assisted = truth[truth == "model_assisted"].index
    assert all(last.get((w, "machine_agreement")) for w in assisted)
    assert all(last.get((w, "hidden_answers")) for w in truth[truth == "bot"].index)
    # the evidence travels with the decision: which reference, and the two correlations
    raised = [d for d in decisions if d.heuristic == "machine_agreement" and d.flag]
    assert raised and all(d.details["reference"] == "minilm" for d in raised)
    assert all(d.details["machine_rho"] > d.details["human_rho"] for d in raised)
    assert all(d.evidence >= 10 and d.threshold == 0 for d in raised)
