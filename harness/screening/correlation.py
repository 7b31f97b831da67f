"""H7 low correlation and H8 consensus correlation: does a worker agree with the others?

Both use real items only. A correlation with fewer than `MIN_PAIRS` shared items, or where
either side is constant, is not computed (it says nothing), never a crash or a warning.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable

import numpy as np
import pandas as pd

from harness.screening.aggregates import ItemAggregates, cells
from harness.screening.context import ScreeningContext, content, result, workers_of

MIN_SHARED = 3  # H7: items two workers must share for their correlation to count
TOP = 3  # H7: the mean of this many best correlations
MIN_ITEMS = 5  # H8: items with enough other raters needed for a consensus correlation
BACKWARDS_BELOW = -0.3  # H8: label "backwards" below this r


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two equal-length arrays; NaN when either is constant or too short."""
    if len(x) < 2:
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    if denominator <= 1e-12:
        return float("nan")
    return float(np.clip((dx * dy).sum() / denominator, -1.0, 1.0))


def low_correlation(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H7: per assignment, the mean of the three best correlations with other workers.

    Each of the worker's assignments (all their judgments when there is no ``assignment_id``)
    is correlated with every other worker on the items both rated; the worker's score is the
    mean over assignments of the mean of the best three. Flag below the threshold (0.3) once
    ``context.min_others`` correlations were computed. The evidence is their number.
    """
    per_unit = unit_correlations(with_units(content(judgments, context)))
    return low_correlation_of(workers_of(judgments), per_unit, context)


def with_units(rows: pd.DataFrame) -> pd.DataFrame:
    """Content rows with ``unit``: the assignment, else ``worker:<id>`` (H7's unit of work)."""
    if "assignment_id" in rows.columns:
        unit = rows["assignment_id"].astype(str).where(rows["assignment_id"].notna(), "")
        unit = unit.where(unit != "", "worker:" + rows["worker_id"])
    else:
        unit = "worker:" + rows["worker_id"]
    return rows.assign(unit=unit)


def unit_correlations(
    rows: pd.DataFrame, units: Collection[tuple[Hashable, Hashable]] | None = None
) -> pd.DataFrame:
    """H7 per (worker, unit): ``worker_id, unit, score, evidence``.

    ``rows`` (content rows with ``unit``) must hold every rating of the items of the units
    scored; ``units`` limits the scoring to those (worker, unit) pairs (default: all). The score
    is the mean of the best three correlations with other workers on the unit's items (NaN
    when none could be computed); the evidence is the number of correlations.
    """
    columns = ["worker_id", "unit", "score", "evidence"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    cell = rows.groupby(["item_id", "worker_id"], sort=True)["value"].mean()
    item_codes, items = pd.factorize(cell.index.get_level_values("item_id"))
    worker_codes, workers = pd.factorize(cell.index.get_level_values("worker_id"))
    values = cell.to_numpy(dtype=float)
    bounds = np.searchsorted(item_codes, np.arange(len(items) + 1))  # cells of item i
    item_index = pd.Index(items)
    shown = rows[["worker_id", "unit", "item_id"]].drop_duplicates()
    shown_items = item_index.get_indexer(pd.Index(shown["item_id"]))
    unit_codes, unit_names = pd.factorize(shown["unit"])
    shown_workers, worker_names = pd.factorize(shown["worker_id"])
    own_code = pd.Index(workers).get_indexer(pd.Index(worker_names))
    pair = shown_workers.astype(np.int64) * max(len(unit_names), 1) + unit_codes
    order = np.argsort(pair, kind="stable")
    starts = np.flatnonzero(np.r_[True, pair[order][1:] != pair[order][:-1]])
    out: list[tuple[Hashable, Hashable, float, int]] = []
    for first, last in zip(starts, np.r_[starts[1:], len(order)], strict=True):
        at_rows = order[first:last]
        name = worker_names[shown_workers[at_rows[0]]]
        unit = unit_names[unit_codes[at_rows[0]]]
        if units is not None and (name, unit) not in units:
            continue
        codes = shown_items[at_rows]
        lengths = bounds[codes + 1] - bounds[codes]
        at = np.concatenate([np.arange(bounds[c], bounds[c + 1]) for c in codes])
        column_of, block_workers = pd.factorize(worker_codes[at])
        block = np.full((len(codes), len(block_workers)), np.nan)
        block[np.repeat(np.arange(len(codes)), lengths), column_of] = values[at]
        mine = block_workers == own_code[shown_workers[at_rows[0]]]
        r = _column_pearson(block[:, mine][:, 0], block[:, ~mine], MIN_SHARED)
        best = np.sort(r[~np.isnan(r)])
        score = float(best[-TOP:].mean()) if len(best) else float("nan")
        out.append((name, unit, score, len(best)))
    return pd.DataFrame(out, columns=columns)


def _column_pearson(own: np.ndarray, others: np.ndarray, min_shared: int) -> np.ndarray:
    """Pearson r of ``own`` with each column of ``others`` on the rows both have (NaN: none).

    The same as `pearson` on each column's shared rows, vectorized: NaN with fewer than
    ``min_shared`` shared rows or when either side is constant there.
    """
    shared = ~np.isnan(own)[:, None] & ~np.isnan(others)
    n = shared.sum(axis=0)
    x = np.where(shared, own[:, None], 0.0)
    y = np.where(shared, others, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        dx = np.where(shared, x - x.sum(axis=0) / n, 0.0)
        dy = np.where(shared, y - y.sum(axis=0) / n, 0.0)
        denominator = np.sqrt((dx * dx).sum(axis=0) * (dy * dy).sum(axis=0))
        r = np.clip((dx * dy).sum(axis=0) / denominator, -1.0, 1.0)
    return np.where((n >= max(min_shared, 2)) & (denominator > 1e-12), r, np.nan)


def low_correlation_of(
    workers: pd.Index, per_unit: pd.DataFrame, context: ScreeningContext
) -> pd.DataFrame:
    """H7 for ``workers`` from the scores of all their units (`unit_correlations`)."""
    grouped = per_unit.groupby("worker_id")
    score = grouped["score"].mean()
    evidence = grouped["evidence"].sum()
    # early in a study a worker has few partners, some of them careless: the best three of
    # fewer than five correlations can all be with bad partners, which is no evidence
    flag = (score < context.threshold("low_correlation")) & (evidence >= context.min_others)
    return result(workers, score, evidence, flag)


def consensus_correlation(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H8: Pearson r with the leave-one-out mean of the other raters, over >= 5 items that have
    at least ``context.min_others`` other raters each (5 when the study has that many: fewer
    make the mean a few workers' opinion, early in a live study perhaps careless ones).

    Flag r below the threshold (0.3); ``label`` is ``backwards`` when r < -0.3 (the scale read
    the wrong way round). ``rho``, the leave-one-out Spearman correlation, is added for the
    report. The evidence is the number of the worker's items with enough other raters.
    """
    rows = content(judgments, context)
    totals = ItemAggregates.of(rows, context.scale.midpoint).totals
    return consensus_correlation_of(workers_of(judgments), cells(rows), totals, context)


def consensus_correlation_of(
    workers: pd.Index,
    cell: pd.DataFrame,
    totals: pd.DataFrame,
    context: ScreeningContext,
    *,
    with_rho: bool = True,
) -> pd.DataFrame:
    """H8 for ``workers`` from their ``cell`` values and every item's cell ``totals``.

    ``with_rho=False`` leaves out the Spearman ``rho`` (it decides nothing; live screening
    computes it only for the workers whose flag changes).
    """
    at = totals.index.get_indexer(pd.Index(cell["item_id"]))
    size = np.where(at >= 0, totals["size"].to_numpy()[at], 0)
    rated = size > context.min_others  # items whose leave-one-out mean has enough raters
    values = cell["value"].to_numpy(dtype=float)[rated]
    others = (totals["sum"].to_numpy()[at][rated] - values) / (size[rated] - 1)
    keys = cell["worker_id"][rated]
    codes, uniques = pd.factorize(keys)
    per_worker = np.bincount(codes, minlength=len(uniques))
    count = pd.Series(per_worker, index=pd.Index(uniques))
    enough = per_worker[codes] >= MIN_ITEMS
    cell = pd.DataFrame({"value": values[enough], "others": others[enough]})
    keys = pd.Series(keys.to_numpy()[enough])
    score = grouped_pearson(keys, cell["value"], cell["others"])
    extra = {}
    if with_rho:
        ranks = grouped_ranks(keys, cell["value"]), grouped_ranks(keys, cell["others"])
        extra["rho"] = grouped_pearson(keys, *ranks)
    flag = score < context.threshold("consensus_correlation")
    label = pd.Series(np.where(score < BACKWARDS_BELOW, "backwards", ""), index=score.index)
    return result(
        workers,
        score,
        count,
        flag,
        label=label.reindex(workers).fillna(""),
        **extra,
    )


def grouped_pearson(keys: pd.Series, x: pd.Series, y: pd.Series) -> pd.Series:
    """Pearson r of ``x`` and ``y`` within each key, as `pearson` (NaN: constant or short)."""
    codes, uniques = pd.factorize(keys, sort=True)
    dx = _centred(codes, x.to_numpy(dtype=float))
    dy = _centred(codes, y.to_numpy(dtype=float))
    n = len(uniques)
    denominator = np.sqrt(
        np.bincount(codes, dx * dx, minlength=n) * np.bincount(codes, dy * dy, minlength=n)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(np.bincount(codes, dx * dy, minlength=n) / denominator, -1.0, 1.0)
    return pd.Series(np.where(denominator > 1e-12, r, np.nan), index=pd.Index(uniques))


def grouped_ranks(keys: pd.Series, x: pd.Series) -> pd.Series:
    """Average ranks (1-based, ties share their mean rank) of ``x`` within each key."""
    codes, _ = pd.factorize(keys)
    values = x.to_numpy(dtype=float)
    if not len(values):
        return pd.Series(values, index=x.index)
    order = np.lexsort((values, codes))
    sorted_codes, sorted_values = codes[order], values[order]
    new_group = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]
    new_run = new_group | np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(len(order)), 0))
    position = np.arange(len(order)) - group_start + 1.0
    run = np.cumsum(new_run) - 1
    mean_position = np.bincount(run, position) / np.bincount(run)
    ranks = np.empty(len(order))
    ranks[order] = mean_position[run]
    return pd.Series(ranks, index=x.index)


def _centred(codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` minus the mean of their group."""
    means = np.bincount(codes, values) / np.bincount(codes)
    return values - means[codes]
