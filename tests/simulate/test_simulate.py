"""The simulated crowd: reproducible, on the scale, and each archetype behaves as its name says."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.roles import ItemRole
from harness.simulate import Archetype, Crowd, Worker, control_truths, simulate_judgments
from harness.simulate.perception import PERCEPTION
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.scale import Scale, resolve_scale

RATING = resolve_scale(StudyType.RATING, ScaleSpec(min=0, max=10, step=1))
LIKERT = Scale(
    StudyType.LIKERT,
    1.0,
    5.0,
    1.0,
    False,
    0,
    tuple((float(v), str(v), None) for v in range(1, 6)),
    False,
)
PAIRS = resolve_scale(StudyType.PAIR_COMPARISON, ScaleSpec())
TRUTHS = pd.Series(np.linspace(0.5, 9.5, 40), index=[f"i{k:02d}" for k in range(40)])


def _one_kind(kind: Archetype, scale: Scale = RATING, truths: pd.Series = TRUTHS) -> pd.DataFrame:
    return simulate_judgments(truths, scale, Crowd({kind: 1.0}, size=6, seed=4), 3, 20, seed=4)


def test_same_seed_gives_an_identical_table_and_another_seed_does_not():
    crowd = Crowd({"careful": 0.5, "spammer": 0.5}, size=10, seed=7)
    first = simulate_judgments(TRUTHS, RATING, crowd, 4, 10, seed=3)
    again = simulate_judgments(TRUTHS, RATING, crowd, 4, 10, seed=3)
    other = simulate_judgments(TRUTHS, RATING, crowd, 4, 10, seed=8)
    pd.testing.assert_frame_equal(first, again)
    assert not first["value"].equals(other["value"])


def test_every_item_gets_its_raters_each_a_different_worker_and_values_are_on_the_scale():
    table = simulate_judgments(TRUTHS, RATING, Crowd(size=10), 4, 15, seed=1)
    per_item = table.groupby("item_id")["worker_id"].agg(["size", "nunique"])
    assert (per_item["size"] == 4).all() and (per_item["nunique"] == 4).all()
    assert table["value"].map(RATING.accepts).all()
    assert list(table.columns) == [
        "item_id",
        "worker_id",
        "value",
        "skipped",
        "assignment_id",
        "position",
        "seconds",
        "role",
        "answered_hidden",
        "true_archetype",
    ]


def test_crowd_counts_follow_the_proportions_exactly():
    counts = Crowd({"careful": 0.7, "spammer": 0.2, "backwards": 0.1}, size=60).counts()
    assert counts == {Archetype.CAREFUL: 42, Archetype.SPAMMER: 12, Archetype.BACKWARDS: 6}


def test_careful_workers_track_the_truth_and_backwards_workers_mirror_it():
    careful = _one_kind(Archetype.CAREFUL)
    backwards = _one_kind(Archetype.BACKWARDS)
    truth = careful["item_id"].map(TRUTHS)
    assert np.corrcoef(careful["value"], truth)[0, 1] > 0.9
    mirrored = backwards["item_id"].map(10 - TRUTHS)
    assert np.corrcoef(backwards["value"], mirrored)[0, 1] > 0.9


def test_spammers_are_fast_and_uncorrelated_and_slow_workers_are_slow_but_good():
    spam = _one_kind(Archetype.SPAMMER)
    slow = _one_kind(Archetype.SLOW)
    assert spam["seconds"].median() < 2.0
    assert abs(np.corrcoef(spam["value"], spam["item_id"].map(TRUTHS))[0, 1]) < 0.4
    assert slow["seconds"].mean() > 300
    assert np.corrcoef(slow["value"], slow["item_id"].map(TRUTHS))[0, 1] > 0.9


def test_straight_liners_are_nearly_constant():
    table = _one_kind(Archetype.STRAIGHT_LINER)
    modal_share = table.groupby("worker_id")["value"].agg(
        lambda v: v.value_counts().iloc[0] / len(v)
    )
    assert (modal_share >= 0.8).all()


def test_radicals_sit_at_the_ends_and_centrists_a_quarter_of_the_range_in():
    # The published centrist answers 2 and 4 on 1-5; on 0-10 that is 2.5 and 7.5, which this
    # scale's whole steps round to 2 and 8.
    radical = _one_kind(Archetype.RADICAL)
    centrist = _one_kind(Archetype.CENTRIST)
    assert radical["value"].isin([0.0, 10.0]).mean() > 0.5
    assert centrist["value"].between(2, 8).all()
    off_middle = centrist["value"][centrist["value"] != 5.0]
    assert off_middle.isin([2, 3, 7, 8]).mean() > 0.5
    assert centrist["value"].std() < radical["value"].std()


def test_likert_answers_are_options():
    truths = pd.Series(np.linspace(1, 5, 12), index=[f"s{k}" for k in range(12)])
    table = _one_kind(Archetype.SLOPPY, LIKERT, truths)
    assert set(table["value"]) <= {1.0, 2.0, 3.0, 4.0, 5.0}


def test_pair_comparison_answers_the_sign_of_the_difference_and_backwards_flips_it():
    differences = pd.Series([-6.0, -5.0, 5.0, 6.0, 0.0], index=list("abcde"))
    careful = _one_kind(Archetype.CAREFUL, PAIRS, differences)
    backwards = _one_kind(Archetype.BACKWARDS, PAIRS, differences)
    assert set(careful["value"]) <= {-1.0, 0.0, 1.0}
    clear = careful[careful["item_id"].isin(list("abcd"))]
    assert (np.sign(clear["item_id"].map(differences)) == clear["value"]).mean() > 0.9
    flipped = backwards[backwards["item_id"].isin(list("abcd"))]
    assert (np.sign(flipped["item_id"].map(differences)) == -flipped["value"]).mean() > 0.9


def test_a_worker_says_equally_similar_below_their_threshold():
    worker = Worker("w", Archetype.CENTRIST, 0.0, 0.0, equal_threshold=3.0)
    answers = worker.answer(np.zeros(2000), PAIRS, np.random.default_rng(0))
    # two equal pairs, each perceived with sd 0.77 (PERCEPTION on 0-10): |difference| < 3
    # with chance 2 Phi(3 / (sqrt(2) 0.77)) - 1 = 0.994
    expected = 2 * stats.norm.cdf(3 / (np.sqrt(2) * PERCEPTION * 10)) - 1
    assert expected == pytest.approx(0.994, abs=5e-4)
    assert (answers == 0.0).mean() == pytest.approx(expected, abs=0.01)


def test_snap_rounds_to_steps_and_clips_to_the_ends():
    assert RATING.snap(np.array([-3.0, 4.4, 4.6, 12.0])).tolist() == [0.0, 4.0, 5.0, 10.0]
    assert LIKERT.snap(np.array([0.2, 2.6, 9.0])).tolist() == [1.0, 3.0, 5.0]


def test_control_truths_put_identical_pairs_at_the_top_and_random_pairs_low():
    items = pd.DataFrame(
        {
            "item_id": ["x", "same", "rand", "g"],
            "role": ["item", ItemRole.IDENTICAL, ItemRole.RANDOM_PAIR, ItemRole.GOLD],
            "gold": [None, None, None, 2.0],
        }
    )
    truths = control_truths(items, RATING)
    assert truths["same"] == 10.0 and truths["rand"] <= 1.5 and truths["g"] == 2.0
    assert "x" not in truths.index
    roles = items.set_index("item_id")["role"]
    table = simulate_judgments(
        pd.concat([TRUTHS, truths]), RATING, Crowd(size=4), 2, 10, seed=0, roles=roles
    )
    assert set(table.loc[table["item_id"] == "same", "role"]) == {"identical"}
    assert set(table.loc[table["item_id"] == "i00", "role"]) == {"item"}


def test_asking_for_more_raters_than_workers_is_an_error():
    with pytest.raises(ValueError, match="raters_per_item=5"):
        simulate_judgments(TRUTHS, RATING, Crowd(size=3), 5, 10)


def test_a_simulated_pair_comparison_study_answers_from_its_pairs_difference():
    from harness.simulate.studies import simulate_spec_study
    from tests.characterize.factories import resolution_spec

    loaded = resolution_spec()
    table = simulate_spec_study(loaded, Crowd({"careful": 1.0}, size=20, seed=4), seed=4)
    assert len(table) == 200 * loaded.spec.raters_per_item
    assert set(table["value"]) <= {-1.0, 0.0, 1.0}
    assert {"p_item_id", "q_item_id", "p_word1", "q_word2"} <= set(table.columns)
    sign = np.sign(table["p_mean"] - table["q_mean"])
    far = (table["p_mean"] - table["q_mean"]).abs() > 4
    assert (table.loc[far, "value"] == sign[far]).mean() > 0.95  # careful workers order far pairs
