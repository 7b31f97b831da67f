"""Simulated machine workers: a model-assisted worker answers a system's ratings, fast and
steady; a bot repeats a pattern at a clockwork pace, in a hidden page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.simulate import Crowd, simulate_judgments
from harness.simulate.machine import machine_answers
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.scale import resolve_scale

RATING = resolve_scale(StudyType.RATING, ScaleSpec(min=0, max=10, step=1))
RNG = np.random.default_rng(11)
TRUTHS = pd.Series(RNG.uniform(1, 9, 60), index=[f"i{k:02d}" for k in range(60)])
# a system that orders the items otherwise than people do, on its own scale (cosines)
SYSTEM = pd.Series(0.2 + 0.05 * RNG.normal(0, 1, 60) + 0.02 * TRUTHS.to_numpy(), TRUTHS.index)


def _crowd(kind: str) -> pd.DataFrame:
    machine = machine_answers(SYSTEM, TRUTHS, RATING)
    crowd = Crowd({"careful": 0.5, kind: 0.5}, size=8, seed=3)
    return simulate_judgments(TRUTHS, RATING, crowd, 4, 20, seed=3, machine=machine)


def _variation(seconds: pd.Series) -> float:
    return float(seconds.std() / seconds.mean())


def test_machine_answers_keep_the_systems_order_spread_like_the_truths_on_the_scale():
    machine = machine_answers(SYSTEM, TRUTHS, RATING)
    assert machine.corr(SYSTEM, method="spearman") == pytest.approx(1.0)
    assert machine.mean() == pytest.approx(TRUTHS.mean(), abs=0.05)
    assert machine.std() == pytest.approx(TRUTHS.std(), rel=0.05)
    assert machine.between(RATING.min, RATING.max).all()


def test_a_model_assisted_worker_answers_the_machine_not_the_truth_fast_and_steady():
    table = _crowd("model_assisted")
    machine = machine_answers(SYSTEM, TRUTHS, RATING)
    for kind, rows in table.groupby("true_archetype"):
        with_machine = rows["value"].corr(rows["item_id"].map(machine))
        with_truth = rows["value"].corr(rows["item_id"].map(TRUTHS))
        steady = rows.groupby("worker_id")["seconds"].agg(_variation)
        if kind == "model_assisted":
            assert with_machine > 0.95 > with_truth
            assert (steady < 0.2).all() and rows["seconds"].median() < 5
        else:
            assert with_truth > with_machine and (steady > 0.3).all()
    assert table["value"].map(RATING.accepts).all() and not table["answered_hidden"].any()


def test_a_bot_repeats_a_pattern_at_a_clockwork_pace_with_the_page_hidden():
    table = _crowd("bot").sort_values(["assignment_id", "position"])
    bots = table[table["true_archetype"] == "bot"]
    for _, rows in bots.groupby("assignment_id"):
        values = rows["value"].to_numpy()
        assert (values[3:] == values[:-3]).all()  # a pattern of three, repeated
        assert _variation(rows["seconds"]) < 0.05
    assert bots["answered_hidden"].all()
    assert not table.loc[table["true_archetype"] == "careful", "answered_hidden"].any()


def test_a_crowd_with_model_assisted_workers_needs_the_machines_answers():
    crowd = Crowd({"careful": 0.5, "model_assisted": 0.5}, size=4, seed=1)
    with pytest.raises(ValueError, match="model-assisted workers need the machine's answers"):
        simulate_judgments(TRUTHS, RATING, crowd, 2, 20, seed=1)


def test_workers_through_a_platforms_door_answer_and_leave_their_archetypes_page_signals():
    from harness.simulate import Archetype, Worker
    from harness.simulate.answering import Answering

    machine = machine_answers(SYSTEM, TRUTHS, RATING)
    answering = Answering(TRUTHS.to_dict(), RATING, machine=machine.to_dict())
    keys = list(TRUTHS.index[:12])
    rng = np.random.default_rng(2)

    def answers(kind: Archetype) -> list:
        return answering.answers(Worker.draw("w", kind, RATING, rng), keys, rng)

    assisted = answers(Archetype.MODEL_ASSISTED)
    values = pd.Series([a.value for a in assisted], index=keys)
    assert values.corr(machine[keys]) > 0.95
    assert all(a.signals.input_kind == "keyboard" and a.signals.hides == 1 for a in assisted)
    assert all(
        a.signals.answered_hidden and a.signals.input_kind == "none" for a in answers(Archetype.BOT)
    )
    person = answers(Archetype.CAREFUL)
    assert all(not a.signals.answered_hidden and a.signals.hidden_seconds == 0 for a in person)
    assert [a.signals.visible_seconds for a in person] == pytest.approx([a.seconds for a in person])
    without = Answering(TRUTHS.to_dict(), RATING)
    with pytest.raises(ValueError, match="model-assisted workers need the machine's answers"):
        without.answers(Worker.draw("w", Archetype.MODEL_ASSISTED, RATING, rng), keys, rng)
