"""H11 machine agreement, H12 hidden answers and H13 steady timing on hand-built tables."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from harness.screening import ScreeningContext, hidden_answers, machine_agreement, steady_timing
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.scale import resolve_scale

TEN = ScreeningContext(resolve_scale(StudyType.RATING, ScaleSpec(min=0, max=10, step=1)))
RNG = np.random.default_rng(7)
ITEMS = [f"i{k:02d}" for k in range(24)]
TRUTH = RNG.uniform(1, 9, len(ITEMS))
FAMILY = RNG.normal(0, 2.0, len(ITEMS))  # the errors models of one family share
REFERENCE = pd.Series(TRUTH + FAMILY, index=ITEMS)  # the system the heuristic is given
HELD_OUT = TRUTH + FAMILY + RNG.normal(0, 0.7, len(ITEMS))  # the model the worker used


def _crowd(extra: dict[str, np.ndarray]) -> pd.DataFrame:
    """Eight careful people (truth + noise sd 1.2) and the ``extra`` workers' values."""
    rng = np.random.default_rng(1)  # each test draws the same people, whatever runs first
    values = {f"p{k}": TRUTH + rng.normal(0, 1.2, len(ITEMS)) for k in range(8)} | extra
    return pd.DataFrame(
        [
            {"item_id": item, "worker_id": w, "value": float(np.clip(np.round(v), 0, 10))}
            for w, row in values.items()
            for item, v in zip(ITEMS, row, strict=True)
        ]
    )


def _with_references(**references: pd.Series) -> ScreeningContext:
    return dataclasses.replace(TEN, references=references)


def test_a_worker_who_follows_an_unseen_model_agrees_with_its_family_more_than_with_people():
    frame = _crowd({"bot": HELD_OUT}).pipe(machine_agreement, _with_references(ref=REFERENCE))
    found = frame.set_index("worker_id")
    assert found.loc["bot", "flag"] and found.loc["bot", "reference"] == "ref"
    assert found.loc["bot", "machine_rho"] > found.loc["bot", "human_rho"]
    assert found.loc["bot", "score"] > 0 and found.loc["bot", "evidence"] == len(ITEMS)
    people = found.drop(index="bot")
    assert not people["flag"].any() and (people["score"] < 0).all()


def test_the_closest_of_several_references_decides_and_without_one_nothing_is_said():
    unrelated = pd.Series(np.random.default_rng(2).normal(0, 1, len(ITEMS)), index=ITEMS)
    table = _crowd({"bot": HELD_OUT})
    both = machine_agreement(table, _with_references(noise=unrelated, ref=REFERENCE))
    assert both.set_index("worker_id").loc["bot", "reference"] == "ref"
    alone = machine_agreement(table, TEN)
    assert alone["score"].isna().all() and not alone["flag"].any()
    assert (alone["evidence"] == 0).all()


def test_a_random_worker_is_not_taken_for_a_machine():
    # two near-zero correlations differ by chance: no flag without agreeing with a machine
    rng = np.random.default_rng(3)
    spam = {f"s{k}": rng.uniform(0, 10, len(ITEMS)) for k in range(4)}
    found = machine_agreement(_crowd(spam), _with_references(ref=REFERENCE))
    assert not found[found["worker_id"].str.startswith("s")]["flag"].any()


def test_too_few_items_with_a_reference_score_is_no_evidence():
    table = _crowd({"bot": HELD_OUT})
    few = _with_references(ref=REFERENCE.iloc[:9])
    assert not machine_agreement(table, few)["flag"].any()


def test_answers_given_while_the_page_was_hidden_flag_above_a_tenth():
    hidden = {"script": [True] * 10, "person": [False] * 9 + [True], "old page": [None] * 10}
    table = pd.DataFrame(
        [
            {"item_id": f"i{k}", "worker_id": w, "value": 5.0, "answered_hidden": h}
            for w, flags in hidden.items()
            for k, h in enumerate(flags)
        ]
    )
    found = hidden_answers(table, TEN).set_index("worker_id")
    assert found.loc["script", "flag"] and found.loc["script", "score"] == 1.0
    assert found.loc["person", "score"] == 0.1 and not found.loc["person", "flag"]
    assert np.isnan(found.loc["old page", "score"]) and found.loc["old page", "evidence"] == 0
    without = hidden_answers(table.drop(columns="answered_hidden"), TEN)
    assert without["score"].isna().all() and not without["flag"].any()


def test_a_clockwork_pace_is_flagged_and_a_human_one_is_not():
    def rows(worker: str, seconds: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "item_id": ITEMS[: len(seconds)],
                "worker_id": worker,
                "value": 5.0,
                "seconds": seconds,
            }
        )

    rng = np.random.default_rng(4)
    table = pd.concat(
        [
            rows("clockwork", np.full(20, 3.0) + rng.normal(0, 0.05, 20)),
            rows("person", rng.lognormal(np.log(7), 0.5, 20)),
            rows("short", np.full(9, 3.0)),  # too few items to say
        ]
    )
    found = steady_timing(table, TEN).set_index("worker_id")
    assert found.loc["clockwork", "flag"] and found.loc["clockwork", "score"] < 0.05
    assert not found.loc["person", "flag"] and found.loc["person", "score"] > 0.2
    assert not found.loc["short", "flag"] and found.loc["short", "evidence"] == 9
