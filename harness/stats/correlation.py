"""Correlations between workers: pairwise Spearman, and each worker against the others' mean.

- ``pairwise_spearman``: Spearman's rho (Spearman 1904; Pearson's r of the mid-ranks, ties
  averaged) between every two workers over the items both rated, ranks recomputed on those
  common items; pairs with fewer than ``min_common`` common items are NaN.
  ``mean_pairwise_spearman`` averages the defined pairs (a secondary agreement figure, METHODS.md
  section 5).
- ``leave_one_out_correlations``: for each worker, over the items the worker rated that at least
  one other worker rated, Pearson's r and Spearman's rho between the worker's value and the mean
  of the *other* workers' values on that item (METHODS.md H8 and section 4). O(judgments): the
  leave-one-out mean is (item sum - x) / (item count - 1).
- ``grouped_spearman``: Spearman's rho of two arrays within each group, for many groups at
  once (each rater against a system, in characterization); ``ranks_within``: the mid-ranks
  within each group it is built on.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.stats._table import valued


def pairwise_spearman(judgments: pd.DataFrame, *, min_common: int = 3) -> pd.DataFrame:
    """Workers x workers matrix of Spearman's rho over common items (diagonal 1)."""
    wide = valued(judgments).pivot_table(
        index="item_id", columns="worker_id", values="value", aggfunc="mean"
    )
    return wide.astype(float).corr(method="spearman", min_periods=min_common)


def mean_pairwise_spearman(judgments: pd.DataFrame, *, min_common: int = 3) -> float:
    """Mean of Spearman's rho over all pairs of workers with >= ``min_common`` common items."""
    rho = pairwise_spearman(judgments, min_common=min_common).to_numpy()
    upper = rho[np.triu_indices_from(rho, k=1)]
    upper = upper[np.isfinite(upper)]
    return float(upper.mean()) if len(upper) else float("nan")


def leave_one_out_correlations(judgments: pd.DataFrame, *, min_items: int = 5) -> pd.DataFrame:
    """Per worker: ``n_items, pearson, spearman`` against the mean of the other workers.

    Every worker of the table gets a row; workers with fewer than ``min_items`` usable items
    get NaN correlations (METHODS.md H8 uses at least 5 items).
    """
    table = valued(judgments).astype({"value": float})
    items = table.groupby("item_id")["value"]
    total = items.transform("sum")
    count = items.transform("size")
    usable = count > 1
    table = table.loc[usable].assign(
        others=(total[usable] - table.loc[usable, "value"]) / (count[usable] - 1)
    )
    grouped = table.groupby("worker_id")
    ranks = pd.DataFrame(
        {
            "worker_id": table["worker_id"],
            "value": grouped["value"].rank(method="average"),
            "others": grouped["others"].rank(method="average"),
        }
    )
    out = pd.DataFrame(
        {
            "n_items": grouped.size(),
            "pearson": _grouped_pearson(table),
            "spearman": _grouped_pearson(ranks),
        }
    )
    out.loc[out["n_items"] < min_items, ["pearson", "spearman"]] = np.nan
    out = out.reindex(sorted(judgments["worker_id"].unique()))
    out["n_items"] = out["n_items"].fillna(0).astype(int)
    return out


def _grouped_pearson(frame: pd.DataFrame) -> pd.Series:
    """Pearson's r of ``value`` and ``others`` within each worker (NaN without variation)."""
    x, y = frame["value"], frame["others"]
    keys = frame["worker_id"]
    mx = x.groupby(keys).transform("mean")
    my = y.groupby(keys).transform("mean")
    dx, dy = x - mx, y - my
    sums = pd.DataFrame({"xy": dx * dy, "xx": dx * dx, "yy": dy * dy, "k": keys}).groupby("k")
    s = sums.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        r: pd.Series = s["xy"] / np.sqrt(s["xx"] * s["yy"])
    return r.where((s["xx"] > 0) & (s["yy"] > 0))


def grouped_spearman(
    groups: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int, *, min_n: int = 3
) -> np.ndarray:
    """Per group code 0..n_groups-1: Spearman's rho of ``x`` and ``y`` over the group's rows.

    Pearson's r of the mid-ranks (ties averaged) within the group, as `scipy.stats.spearmanr`;
    NaN for a group with fewer than ``min_n`` rows or where either side does not vary.
    """
    out = np.full((n_groups, 1), np.nan)
    if len(groups):
        ranks = np.column_stack([ranks_within(groups, np.asarray(v, dtype=float)) for v in (x, y)])
        size = np.bincount(groups, minlength=n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            dev = ranks - (_group_sums(groups, ranks, n_groups) / size[:, None])[groups]
            squares = _group_sums(groups, dev * dev, n_groups)
            products = _group_sums(groups, dev[:, :1] * dev[:, 1:], n_groups)
            r = products / np.sqrt(squares[:, :1] * squares[:, 1:])
        # mid-ranks are halves: they vary exactly when the values do, and sum without error
        usable = (size[:, None] >= min_n) & (squares[:, :1] > 0) & (squares[:, 1:] > 0)
        out[usable] = np.clip(r[usable], -1.0, 1.0)
    return out[:, 0]


def _group_sums(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Column-wise sums of a 2-D array within each group."""
    return np.column_stack(
        [np.bincount(groups, values[:, c], minlength=n_groups) for c in range(values.shape[1])]
    )


def ranks_within(groups: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share their mean rank) of ``values`` within each group.

    One lexsort by (group, value); NaN values rank last in their group.
    """
    values = np.asarray(values, dtype=float)
    if not len(values):
        return values.copy()
    order = np.lexsort((values, groups))
    sorted_groups, sorted_values = groups[order], values[order]
    new_group = np.r_[True, sorted_groups[1:] != sorted_groups[:-1]]
    new_run = new_group | np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(len(order)), 0))
    position = np.arange(len(order)) - group_start + 1.0
    run = np.cumsum(new_run) - 1
    mean_position = np.bincount(run, position) / np.bincount(run)
    ranks = np.empty(len(order))
    ranks[order] = mean_position[run]
    return ranks
