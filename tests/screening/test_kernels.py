"""The vectorized pieces screening is built on, against scipy and the plain implementations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.screening import correlation
from harness.screening.aggregates import ItemAggregates
from harness.screening.correlation import (
    grouped_pearson,
    grouped_ranks,
    pearson,
    unit_correlations,
)
from harness.screening.rowstore import RowStore
from tests.screening import h7_reference


def _groups(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 400
    frame = pd.DataFrame(
        {
            "key": rng.choice(["a", "b", "c", "d", "e"], n),
            "x": rng.integers(0, 6, n).astype(float),  # many ties
            "y": rng.normal(size=n),
        }
    )
    frame.loc[frame["key"] == "e", "x"] = 3.0  # constant within a group
    return frame


def test_grouped_ranks_are_scipy_average_ranks_within_each_group():
    frame = _groups()
    ranks = grouped_ranks(frame["key"], frame["x"])
    for _, part in frame.groupby("key"):
        np.testing.assert_allclose(ranks[part.index], stats.rankdata(part["x"], method="average"))


def test_grouped_pearson_is_pearson_per_group_and_nan_for_a_constant_group():
    frame = _groups(1)
    r = grouped_pearson(frame["key"], frame["x"], frame["y"])
    for key, part in frame.groupby("key"):
        if key == "e":
            assert np.isnan(r[key]) and np.isnan(pearson(part["x"].to_numpy(), part["y"]))
        else:
            assert abs(r[key] - stats.pearsonr(part["x"], part["y"]).statistic) < 1e-12


def test_item_aggregates_are_row_means_cell_totals_and_side_counts():
    rows = pd.DataFrame(
        {
            "item_id": ["i", "i", "i", "j", "j"],
            "worker_id": ["u", "u", "v", "u", "v"],  # u rated i twice: one cell, mean 2
            "value": [1.0, 3.0, 8.0, 5.0, 6.0],
        }
    )
    agg = ItemAggregates.of(rows, midpoint=5.0)
    assert agg.consensus.to_dict() == {"i": 4.0, "j": 5.5}
    assert agg.totals.loc["i"].tolist() == [10.0, 2] and agg.totals.loc["j"].tolist() == [11.0, 2]
    assert agg.sides.loc["i"].tolist() == [1, 0, 1] and agg.sides.loc["j"].tolist() == [0, 1, 1]
    agg.replace(ItemAggregates.of(rows[rows["item_id"] == "j"].assign(value=0.0), 5.0))
    assert agg.consensus["j"] == 0.0 and agg.sides.loc["j"].tolist() == [2, 0, 0]
    assert agg.totals.loc["i"].tolist() == [10.0, 2]


def test_a_row_store_returns_the_rows_of_given_keys_across_growth():
    store = RowStore(["k", "v"], {"v": "float64"}, ["k"])
    for start in range(0, 300, 30):
        store.append(
            pd.DataFrame(
                {
                    "k": [f"k{i % 7}" for i in range(start, start + 30)],
                    "v": np.arange(start, start + 30, dtype=float),
                }
            )
        )
    rows = store.rows("k", ["k3", "missing"])
    assert rows["v"].tolist() == [float(i) for i in range(300) if i % 7 == 3]
    assert store.size == 300
    assert store.take(np.arange(300))["v"].tolist() == [float(i) for i in range(300)]


def _assignment_rows(seed: int, n_items: int = 40, n_workers: int = 25) -> pd.DataFrame:
    """Content rows with units: workers take random HITs of random items (partial overlaps),
    some rate an item twice, one answers a constant, one works without assignment ids."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 10, n_items)
    records = []
    for w in range(n_workers):
        for a in range(rng.integers(1, 4)):
            items = rng.choice(n_items, size=rng.integers(2, 12), replace=False)
            for i in items:
                noisy = float(np.clip(np.round(truth[i] + rng.normal(0, 2)), 0, 10))
                value = 7.0 if w == 3 else noisy
                unit = f"worker:w{w}" if w == 4 else f"a{w}-{a}"
                records.append((f"i{i:02d}", f"w{w}", value, unit))
                if rng.random() < 0.05:  # a repeated showing: the cell is the mean
                    records.append((f"i{i:02d}", f"w{w}", float(rng.integers(0, 11)), unit))
    return pd.DataFrame(records, columns=["item_id", "worker_id", "value", "unit"])


def _same_scores(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert got["worker_id"].tolist() == expected["worker_id"].tolist()
    assert got["unit"].tolist() == expected["unit"].tolist()
    assert got["evidence"].tolist() == expected["evidence"].tolist()
    np.testing.assert_allclose(got["score"], expected["score"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_h7_unit_correlations_equal_the_per_unit_blocks(seed):
    rows = _assignment_rows(seed)
    expected = h7_reference.unit_correlations(rows)
    assert expected["evidence"].gt(0).any() and expected["score"].isna().any()
    _same_scores(unit_correlations(rows), expected)


def test_h7_unit_correlations_in_small_blocks_and_for_chosen_units(monkeypatch):
    rows = _assignment_rows(7)
    monkeypatch.setattr(correlation, "_ENTRIES", 25)  # a few groups per block, some alone
    _same_scores(unit_correlations(rows), h7_reference.unit_correlations(rows))
    chosen = set(list(zip(rows["worker_id"], rows["unit"], strict=True))[::7])
    _same_scores(unit_correlations(rows, chosen), h7_reference.unit_correlations(rows, chosen))


def test_h7_unit_correlations_of_integer_codes_as_live_screening_keeps_them():
    rows = _assignment_rows(8)
    coded = rows.assign(
        item_id=pd.factorize(rows["item_id"])[0], worker_id=pd.factorize(rows["worker_id"])[0]
    )
    chosen = {(int(w), u) for w, u in zip(coded["worker_id"], coded["unit"], strict=True)}
    _same_scores(unit_correlations(coded, chosen), h7_reference.unit_correlations(coded))
