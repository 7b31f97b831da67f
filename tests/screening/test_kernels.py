"""The vectorized pieces screening is built on, against scipy and the plain implementations."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from harness.screening.aggregates import ItemAggregates
from harness.screening.correlation import grouped_pearson, grouped_ranks, pearson
from harness.screening.rowstore import RowStore


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
        store.append(pd.DataFrame({"k": [f"k{i % 7}" for i in range(start, start + 30)],
                                   "v": np.arange(start, start + 30, dtype=float)}))  # fmt: skip
    rows = store.rows("k", ["k3", "missing"])
    assert rows["v"].tolist() == [float(i) for i in range(300) if i % 7 == 3]
    assert store.size == 300 and len(store.frame()) == 300
