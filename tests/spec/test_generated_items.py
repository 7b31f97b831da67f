"""Generated items and controls: seeded, deterministic, shaped as docs/methods.md defines."""

from __future__ import annotations

import numpy as np
from scipy import stats

from harness.spec import load_spec
from tests.factories import TASK_SPECS


def test_pairs_of_pairs_spread_uniformly_over_the_ws353_distance_range(ws353_dir):
    loaded = load_spec(TASK_SPECS / "ws353_resolution.yaml")
    items = loaded.items
    assert len(items) == 200 and items["item_id"].is_unique
    distance = items["distance"].to_numpy()
    assert np.allclose(distance, (items["p_mean"] - items["q_mean"]).abs())
    # one draw per equal-width bin: the sample is close to uniform over [0, max]
    assert stats.kstest(distance / distance.max(), "uniform").pvalue > 0.2
    same_words = (items["p_word1"] == items["q_word1"]) & (items["p_word2"] == items["q_word2"])
    assert not same_words.any()
    assert 0.3 < (items["p_mean"] > items["q_mean"]).mean() < 0.7  # P is not always the closer pair


def test_the_same_seed_gives_the_same_design():
    first = load_spec(TASK_SPECS / "ws353_resolution.yaml")
    second = load_spec(TASK_SPECS / "ws353_resolution.yaml")
    assert first.items.equals(second.items)
    assert first.instrument_hash == second.instrument_hash


def test_controls_add_identical_and_random_pairs_per_hit():
    ws = load_spec(TASK_SPECS / "ws353_reproduction.yaml").items
    identical = ws[ws["role"] == "identical"]
    assert len(identical) == 12 and (identical["word1"] == identical["word2"]).all()
    sentences = load_spec(TASK_SPECS / "sentence_similarity.yaml").items
    random_pairs = sentences[sentences["role"] == "random_pair"]
    assert len(random_pairs) == 2 * 2
    content = sentences[sentences["role"] != "random_pair"]
    existing = set(zip(content["sentence1"], content["sentence2"], strict=True))
    assert not existing & set(
        zip(random_pairs["sentence1"], random_pairs["sentence2"], strict=True)
    )
    assert (sentences["role"] == "control_group").sum() == 4


def test_gold_items_carry_their_designated_answers():
    items = load_spec(TASK_SPECS / "statements_likert.yaml").items
    gold = items[items["role"] == "gold"].set_index("item_id")["gold"]
    assert gold.to_dict() == {"st-05": 5.0, "st-06": 1.0, "st-25": 5.0, "st-26": 1.0}


def test_one_ws353_everywhere_the_design_measures_with_the_reports_means(ws353_dir, tmp_path):
    # The report compares against raters 1-13 (--original ws353); the design's distances (and
    # so a simulated crowd's truths) must come from the same means, not the 16-rater table.
    from harness.datasets import load_ws353

    dataset = load_ws353(ws353_dir)
    thirteen = dataset.rater_table(13).groupby("item_id")["value"].mean()
    sixteen = dataset.rater_table(16).groupby("item_id")["value"].mean()
    items = load_spec(TASK_SPECS / "ws353_resolution.yaml").items
    assert np.allclose(items["p_mean"], thirteen.reindex(items["p_item_id"]).to_numpy())
    assert np.allclose(items["q_mean"], thirteen.reindex(items["q_item_id"]).to_numpy())
    spec = (TASK_SPECS / "ws353_reproduction.yaml").read_text(encoding="utf-8")
    named = tmp_path / "spec.yaml"
    for dataset_name, means in (("ws353", thirteen), ("ws353-16", sixteen)):
        named.write_text(
            spec.replace("\n  dataset: ws353\n", f"\n  dataset: {dataset_name}\n").replace(
                "file: guidelines/", f"file: {TASK_SPECS}/guidelines/"
            ),
            encoding="utf-8",
        )
        loaded = load_spec(named)
        content = loaded.items[loaded.items["role"] == "item"].set_index("item_id")["mean"]
        assert np.allclose(content.to_numpy(), means.reindex(content.index).to_numpy())
