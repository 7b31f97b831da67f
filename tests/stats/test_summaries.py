"""Per-item and per-worker summaries, correlations between workers, and kappas."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.errors import StatsError
from harness.stats.correlation import (
    grouped_spearman,
    leave_one_out_correlations,
    mean_pairwise_spearman,
    pairwise_spearman,
)
from harness.stats.kappa import cohen_kappa, cohen_kappa_workers, fleiss_kappa, fleiss_kappa_counts
from harness.stats.summaries import item_summaries, worker_summaries


def ratings(seed: int = 0, workers: int = 8, items: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 10, items)
    rows = [
        (f"i{i:02d}", f"w{w}", float(np.round(truth[i] + rng.normal(0, 2 + w / 3), 1)))
        for w in range(workers)
        for i in range(items)
        if rng.random() < 0.75
    ]
    table = pd.DataFrame(rows, columns=["item_id", "worker_id", "value"])
    table["skipped"] = False
    skips = pd.DataFrame(
        {"item_id": ["i00", "i01"], "worker_id": ["w0", "w9"], "value": np.nan, "skipped": True}
    )
    return pd.concat([table, skips], ignore_index=True)


def test_item_summaries_use_population_and_sample_sd():
    table = ratings()
    summary = item_summaries(table)
    values = table[~table["skipped"]].groupby("item_id")["value"].apply(np.array)
    for item in ["i00", "i07", "i29"]:
        x = values[item]
        row = summary.loc[item]
        assert row["n"] == len(x)
        assert row["mean"] == pytest.approx(np.mean(x))
        assert row["median"] == pytest.approx(np.median(x))
        assert row["sd"] == pytest.approx(np.std(x, ddof=0))
        assert row["sd_sample"] == pytest.approx(np.std(x, ddof=1))


def test_worker_summaries_count_skips_and_keep_workers_who_only_skipped():
    summary = worker_summaries(ratings())
    assert summary.loc["w9", "n"] == 0 and summary.loc["w9", "n_skipped"] == 1
    assert summary.loc["w0", "n_skipped"] == 1
    assert np.isnan(summary.loc["w9", "mean"])
    assert {"n", "n_skipped", "mean", "median", "sd", "sd_sample", "min", "max"} <= set(summary)


def test_pairwise_spearman_reranks_on_the_common_items():
    table = ratings()
    rho = pairwise_spearman(table)
    valued = table[~table["skipped"]]
    wide = valued.pivot(index="item_id", columns="worker_id", values="value")
    pairs = []
    for a, b in itertools.combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        expected = stats.spearmanr(both[a], both[b]).statistic
        assert rho.loc[a, b] == pytest.approx(expected, abs=1e-12)
        pairs.append(expected)
    assert mean_pairwise_spearman(table) == pytest.approx(np.mean(pairs), abs=1e-12)


def test_leave_one_out_correlation_against_a_direct_computation():
    table = ratings()
    got = leave_one_out_correlations(table)
    valued = table[~table["skipped"]]
    for worker in ["w0", "w3", "w7"]:
        mine = valued[valued["worker_id"] == worker].set_index("item_id")["value"]
        others = valued[valued["worker_id"] != worker].groupby("item_id")["value"].mean()
        common = mine.index.intersection(others.index)
        x, y = mine[common], others[common]
        assert got.loc[worker, "n_items"] == len(common)
        assert got.loc[worker, "pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
        assert got.loc[worker, "spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
    assert got.loc["w9", "n_items"] == 0 and np.isnan(got.loc["w9", "pearson"])


def test_cohen_kappa_wikipedia_example():
    # Wikipedia, "Cohen's kappa", worked example: 50 grant proposals read by two readers;
    # both yes 20, A yes/B no 5, A no/B yes 10, both no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    table = pd.DataFrame(
        {
            "item_id": list(range(50)) * 2,
            "worker_id": ["A"] * 50 + ["B"] * 50,
            "value": a + b,
        }
    )
    assert cohen_kappa_workers(table, "A", "B") == pytest.approx(0.4)


# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories:
# P_bar = 0.378, P_e = 0.213, kappa = 0.210.
FLEISS_EXAMPLE = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def test_fleiss_kappa_wikipedia_example():
    assert round(fleiss_kappa_counts(FLEISS_EXAMPLE), 3) == 0.210
    rows = [
        (f"s{i}", f"r{r}", category)
        for i, counts in enumerate(FLEISS_EXAMPLE)
        for category, count in enumerate(counts)
        for r in range(count)
    ]
    table = pd.DataFrame(rows, columns=["item_id", "worker_id", "value"])
    assert fleiss_kappa(table) == pytest.approx(fleiss_kappa_counts(FLEISS_EXAMPLE))


def test_fleiss_kappa_of_two_raters_is_scotts_pi_related_to_alpha():
    # With two raters and no missing data, Fleiss' kappa equals Scott's pi, and Krippendorff's
    # alpha = 1 - (1 - pi) (2N - 1) / (2N) (Krippendorff 2004, p. 250): an independent check.
    from harness.stats import krippendorff_alpha

    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 60)
    b = np.where(rng.random(60) < 0.6, a, rng.integers(0, 3, 60))
    table = pd.DataFrame(
        {
            "item_id": list(range(60)) * 2,
            "worker_id": ["A"] * 60 + ["B"] * 60,
            "value": np.concatenate([a, b]),
        }
    )
    pi = fleiss_kappa(table)
    alpha = krippendorff_alpha(table, "nominal")
    assert alpha == pytest.approx(1 - (1 - pi) * 119 / 120, abs=1e-12)


def test_kappa_is_undefined_with_a_single_category():
    with pytest.raises(StatsError):
        cohen_kappa(["x", "x"], ["x", "x"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(StatsError):
            fleiss_kappa_counts(np.array([[3, 0], [2, 0]]))


def test_grouped_spearman_equals_scipy_per_group_with_ties_short_and_constant_groups():
    rng = np.random.default_rng(11)
    sizes = [1, 2, 3, 4, 8, 25, 6, 6]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    x = rng.integers(0, 5, len(groups)).astype(float)  # ties
    y = rng.normal(size=len(groups))
    x[groups == 6] = 2.0  # constant x
    y[groups == 7] = -1.0  # constant y
    got = grouped_spearman(groups, x, y, len(sizes) + 1)  # the last group has no rows
    for g in range(len(sizes) + 1):
        a, b = x[groups == g], y[groups == g]
        if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
            assert np.isnan(got[g])
        else:
            assert got[g] == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
