"""Resolution from a simulated pair-comparison study over WS353 (pairs_of_pairs design)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from harness.characterize import pair_decisions, resolution
from harness.errors import InputError
from tests.characterize import factories


def _brute_decisions(table, means):
    rows = {}
    for item, group in table.groupby("item_id"):
        votes = Counter(group["value"])
        top = max(votes.values())
        winners = [v for v, n in votes.items() if n == top]
        decision = winners[0] if len(winners) == 1 else 0.0
        p, q = group["p_item_id"].iloc[0], group["q_item_id"].iloc[0]
        d = means[p] - means[q]
        rows[item] = (abs(d), decision == np.sign(d) and decision != 0, top / len(group))
    return rows


def test_decisions_are_majority_votes_with_ties_as_equal(resolution_table, ws353_dir):
    means = factories.ws353_means()
    brute = _brute_decisions(resolution_table, means)
    got = pair_decisions(resolution_table, means)
    assert len(got) == 200
    for item, (distance, agrees, share) in brute.items():
        assert got.at[item, "distance"] == pytest.approx(distance)
        assert bool(got.at[item, "agrees"]) == agrees
        assert got.at[item, "share"] == pytest.approx(share)


def test_agreement_curve_resolution_and_item_pairs_match_brute_force(resolution_table, ws353_dir):
    means = factories.ws353_means()
    brute = _brute_decisions(resolution_table, means)
    res = resolution(resolution_table, means, scale_range=10.0)
    for row in res.curve.itertuples():
        above = [agrees for d, agrees, _ in brute.values() if d >= row.threshold - 1e-9]
        assert row.n == len(above)
        assert row.agreement == pytest.approx(np.mean(above))
    eligible = res.curve[(res.curve["n"] >= 10) & (res.curve["agreement"] >= 0.95)]
    assert res.threshold_95 == pytest.approx(eligible["threshold"].iloc[0])
    values = means.to_numpy()
    pairs = [abs(a - b) for a, b in itertools.combinations(values, 2)]
    above = sum(1 for d in pairs if d >= res.threshold_95 - 1e-9)
    assert res.item_pairs_above == above
    assert res.item_pairs_below == len(pairs) - above == res.n_item_pairs - above
    assert res.curve["threshold"].iloc[1] == pytest.approx(0.1)


def test_the_design_spreads_original_distances_over_the_range(ws353_dir):
    design = factories.resolution_spec().items
    distance = (design["p_mean"] - design["q_mean"]).abs()
    counts, _ = np.histogram(distance, bins=4, range=(0, distance.max()))
    assert counts.min() >= 40  # 200 pairs over 4 quarters of the range: about 50 each


def test_a_resolution_study_over_other_items_is_refused_naming_them(resolution_table, ws353_dir):
    table = resolution_table.copy()
    table.loc[table["item_id"] == "pp-001", "p_item_id"] = "sl999-001"
    with pytest.raises(
        InputError,
        match=r"res\.csv: 1 item\(s\) .* not items of the original "
        r"instrument \(sl999-001\)",
    ):
        resolution(table, factories.ws353_means(), source="res.csv")


def test_a_resolution_study_without_its_design_columns_is_refused(resolution_table, ws353_dir):
    with pytest.raises(InputError, match="res.csv: missing column.*p_item_id"):
        resolution(
            resolution_table.drop(columns="p_item_id"), factories.ws353_means(), source="res.csv"
        )


def test_ratings_are_not_pair_comparison_answers(resolution_table, ws353_dir):
    table = resolution_table.copy()
    table.loc[0, "value"] = 7.0
    with pytest.raises(InputError, match="not pair-comparison answers"):
        resolution(table, factories.ws353_means())


def test_the_resolution_interval_is_the_resolution_over_resamples_of_the_pairs_of_pairs(
    resolution_table, ws353_dir
):
    # Recomputed by brute force on the same resamples (bootstrap_indices, the psychometric
    # curve's), each resample's resolution the smallest 0.1-step t with >= 10 pairs of pairs at
    # or above it and 95% of them agreeing.
    from harness.characterize.psychometric import bootstrap_indices

    means = factories.ws353_means()
    res = resolution(resolution_table, means, resamples=200, seed=7)
    decisions = res.decisions
    distance, agrees = decisions["distance"].to_numpy(), decisions["agrees"].to_numpy()
    found = []
    for rows in bootstrap_indices(len(decisions), 200, seed=7):
        for k in range(int(distance.max() / 0.1 + 1e-9) + 1):
            t = k * 0.1
            above = distance[rows] >= t - 1e-9
            if above.sum() >= 10 and agrees[rows][above].mean() >= 0.95:
                found.append(t)
                break
    assert res.threshold_unreached == 200 - len(found)
    assert res.threshold_ci == pytest.approx(
        (np.percentile(found, 2.5), np.percentile(found, 97.5))
    )
    assert res.threshold_ci[0] <= res.threshold_95 <= res.threshold_ci[1]
    assert res.to_dict()["threshold_ci"] == list(res.threshold_ci)
