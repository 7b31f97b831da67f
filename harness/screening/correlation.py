"""H7 low correlation and H8 consensus correlation: does a worker agree with the others?

Both use real items only. A correlation with fewer than `MIN_PAIRS` shared items, or where
either side is constant, is not computed (it says nothing), never a crash or a warning.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.screening.aggregates import ItemAggregates, cells
from harness.screening.context import ScreeningContext, content, result, workers_of
from harness.spec.heuristics import HeuristicKey
from harness.stats.correlation import ranks_within

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
    is correlated with every other worker on the items both rated, and scored by the mean of
    its best three correlations. The rule is the published one, per assignment: an assignment
    whose score is below the threshold (0.3) fails, once it rests on ``context.min_others``
    correlations. The worker's score is their worst such assignment (so one random HIT among
    good ones is not averaged away), flagged when it fails; ``worst`` names that assignment,
    ``below`` counts the worker's failing assignments and ``mean`` is the mean over all their
    assignments. The evidence is the number of correlations of all their assignments.
    """
    per_unit = unit_correlations(with_units(content(judgments, context)))
    return low_correlation_of(workers_of(judgments), per_unit, context)


def with_units(rows: pd.DataFrame) -> pd.DataFrame:
    """Content rows with ``unit``: the assignment, else ``worker:<id>`` (H7's unit of work)."""
    if "assignment_id" in rows.columns:
        unit = rows["assignment_id"].astype(str).where(rows["assignment_id"].notna(), "")
        alone = (unit == "").to_numpy()
        if alone.any():  # only those rows get a worker's unit (building 1M strings is slow)
            unit = unit.astype(object)
            unit[alone] = "worker:" + rows["worker_id"][alone].astype(str)
    else:
        unit = "worker:" + rows["worker_id"].astype(str)
    return rows.assign(unit=unit)


def unit_correlations(
    rows: pd.DataFrame, units: Collection[tuple[Hashable, Hashable]] | None = None
) -> pd.DataFrame:
    """H7 per (worker, unit): ``worker_id, unit, score, evidence``.

    ``rows`` (content rows with ``unit``) must hold every rating of the items of the units
    scored; ``units`` limits the scoring to those (worker, unit) pairs (default: all). The score
    is the mean of the best three correlations with other workers on the unit's items (NaN
    when none could be computed); the evidence is the number of correlations. One row per
    (worker, unit), workers and units in order of first appearance.

    All units at once: every (unit, other worker, item) where the other worker rated an item
    of the unit becomes one entry, and each correlation is summed from the entries of its
    (unit, other worker) group as `pearson` computes it (two passes: means, then deviations).
    """
    columns = ["worker_id", "unit", "score", "evidence"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    item, worker, unit_code, value, names = _coded(rows)
    cell_key, cell_value, cell = _cells(item, worker, value, len(names.workers))
    # the shown (worker, unit, item) triples in first-appearance order, grouped by (worker, unit)
    group_key = worker.astype(np.int64) * max(len(names.units), 1) + unit_code
    if (int(group_key.max()) + 1) * len(names.items) < 2**62:
        seen = pd.Series(group_key * len(names.items) + item).duplicated().to_numpy()
    else:  # too many (worker, unit, item) combinations for one integer key
        seen = pd.DataFrame({"group": group_key, "item": item}).duplicated().to_numpy()
    group_key, item, cell = group_key[~seen], item[~seen], cell[~seen]
    order = np.argsort(group_key, kind="stable")
    group_key, item, cell = group_key[order], item[order], cell[order]
    worker = group_key // max(len(names.units), 1)
    first = np.r_[True, group_key[1:] != group_key[:-1]]
    group = np.cumsum(first) - 1
    group_worker = worker[first]
    group_unit = (group_key[first] % max(len(names.units), 1)).astype(np.int64)
    if units is not None:
        wanted = set(units)
        chosen = np.fromiter(
            (
                (names.workers[w], names.units[u]) in wanted
                for w, u in zip(group_worker, group_unit, strict=True)
            ),
            dtype=bool,
            count=len(group_worker),
        )
        keep = chosen[group]
        group_worker, group_unit = group_worker[chosen], group_unit[chosen]
        group = (np.cumsum(chosen) - 1)[group[keep]]
        item, cell = item[keep], cell[keep]
    score, evidence = _best_correlations(
        group, item, cell, cell_key, cell_value, len(names.workers), len(group_worker)
    )
    return pd.DataFrame(
        {
            "worker_id": np.asarray(names.workers, dtype=object)[group_worker],
            "unit": np.asarray(names.units, dtype=object)[group_unit],
            "score": score,
            "evidence": evidence,
        },
        columns=columns,
    )


@dataclass(frozen=True)
class _Names:
    items: pd.Index
    workers: pd.Index
    units: pd.Index


def _coded(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, _Names]:
    """Item, worker and unit codes (first-appearance order), values, and the names coded."""
    item, items = pd.factorize(rows["item_id"])
    worker, workers = pd.factorize(rows["worker_id"])
    unit, units = pd.factorize(rows["unit"])
    value = rows["value"].to_numpy(dtype=float)
    return item, worker, unit, value, _Names(pd.Index(items), pd.Index(workers), pd.Index(units))


def _cells(
    item: np.ndarray, worker: np.ndarray, value: np.ndarray, n_workers: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted keys item * n_workers + worker, each worker's mean value on the item, and the
    cell of each row."""
    keys, inverse = np.unique(item.astype(np.int64) * n_workers + worker, return_inverse=True)
    means = pd.Series(value).groupby(inverse).mean().to_numpy()
    return keys, means, inverse


def _best_correlations(
    group: np.ndarray,
    item: np.ndarray,
    cell: np.ndarray,
    cell_key: np.ndarray,
    cell_value: np.ndarray,
    n_workers: int,
    n_groups: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per group (a worker's unit: one entry per item shown, with the worker's own ``cell``):
    the mean of the best three correlations with other workers, and how many there were."""
    cell_item = cell_key // n_workers
    cell_worker = cell_key % n_workers
    bounds = np.searchsorted(cell_item, np.arange(int(item.max()) + 2 if len(item) else 1))
    others = bounds[item + 1] - bounds[item] - 1  # the item's cells but the worker's own
    ends = np.cumsum(others)
    found: list[tuple[np.ndarray, np.ndarray]] = []
    start = 0
    while start < len(item):  # blocks of about _ENTRIES entries, whole groups each
        stop = int(np.searchsorted(ends, ends[start] - others[start] + _ENTRIES, side="right"))
        if stop < len(item):  # end the block where a group starts (after the first group)
            stop = int(np.searchsorted(group, group[stop], side="left"))
            if stop <= start:
                stop = int(np.searchsorted(group, group[start], side="right"))
        stop = min(max(stop, start + 1), len(item))
        block = slice(start, stop)
        found.append(
            _correlations(
                group[block],
                bounds[item[block]],
                others[block],
                cell[block],
                cell_worker,
                cell_value,
                n_workers,
            )
        )
        start = stop
    r_group = np.concatenate([g for g, _ in found])
    r = np.concatenate([r for _, r in found])
    return _mean_of_best(r_group, r, n_groups)


_ENTRIES = 2_000_000  # (unit, other worker, item) entries held in memory at once


def _correlations(
    group: np.ndarray,
    first: np.ndarray,
    others: np.ndarray,
    own: np.ndarray,
    cell_worker: np.ndarray,
    cell_value: np.ndarray,
    n_workers: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(group, r) of every correlation computed for the given shown items: each has its
    item's cells from ``first`` on, ``others`` of them besides the worker's own cell ``own``."""
    starts = np.cumsum(others) - others
    at = np.repeat(first - starts, others) + np.arange(int(others.sum()))
    at += at >= np.repeat(own, others)  # step over the worker's own cell
    base = int(group[0]) if len(group) else 0
    key = np.repeat((group - base) * n_workers, others) + cell_worker[at]
    pair, pairs = pd.factorize(key)
    k = len(pairs)
    x, y = np.repeat(cell_value[own], others), cell_value[at]
    n = np.bincount(pair, minlength=k)
    with np.errstate(divide="ignore", invalid="ignore"):
        dx = x - (np.bincount(pair, x, minlength=k) / n)[pair]
        dy = y - (np.bincount(pair, y, minlength=k) / n)[pair]
        denominator = np.sqrt(
            np.bincount(pair, dx * dx, minlength=k) * np.bincount(pair, dy * dy, minlength=k)
        )
        r = np.clip(np.bincount(pair, dx * dy, minlength=k) / denominator, -1.0, 1.0)
    ok = (n >= max(MIN_SHARED, 2)) & (denominator > 1e-12)
    return np.asarray(pairs)[ok] // n_workers + base, r[ok]


def _mean_of_best(group: np.ndarray, r: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the mean of its ``TOP`` highest r (NaN without any), and how many r it has."""
    evidence = np.bincount(group, minlength=n_groups)
    order = np.lexsort((r, group))
    ends = np.cumsum(evidence)  # the group's r end here, in ascending order
    taken = np.minimum(evidence, TOP)
    total = np.zeros(n_groups)
    for k in range(TOP, 0, -1):  # ascending: the k-th highest first, as numpy's mean adds them
        use = taken >= k
        total[use] += r[order[ends[use] - k]]
    with np.errstate(invalid="ignore"):
        score = np.where(taken > 0, total / taken, np.nan)
    return score, evidence


def low_correlation_assignments(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H7 judged per assignment, as the published rule is: one row per (worker, assignment)
    (``unit``), with its ``score``, ``evidence`` and ``flag`` (the assignment fails). What a
    spec's action on H7 applies to: a rejection rejects the failing assignments, not the
    worker's others."""
    per_unit = unit_correlations(with_units(content(judgments, context)))
    return unit_flags(per_unit, context)


def unit_flags(per_unit: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """`unit_correlations`'s rows with H7's ``flag`` per unit: judged (a score resting on at
    least ``context.min_others`` correlations) and below the threshold."""
    return per_unit.assign(flag=_judged(per_unit, context) & (per_unit["score"] < _h7(context)))


def _h7(context: ScreeningContext) -> float:
    return context.threshold(HeuristicKey.LOW_CORRELATION)


def _judged(per_unit: pd.DataFrame, context: ScreeningContext) -> pd.Series:
    """Units with a score and enough correlations to judge: early in a study a unit has few
    partners, some of them careless, and the best three of fewer than five correlations can
    all be with bad partners, which is no evidence."""
    return per_unit["score"].notna() & (per_unit["evidence"] >= context.min_others)


def low_correlation_of(
    workers: pd.Index, per_unit: pd.DataFrame, context: ScreeningContext
) -> pd.DataFrame:
    """H7 for ``workers`` from the scores of all their units (`unit_correlations`)."""
    threshold = _h7(context)
    scored = per_unit[per_unit["score"].notna()]
    judged = per_unit[_judged(per_unit, context)]
    # the worst unit with enough evidence; a worker without one shows their worst unit, unflagged
    pool = pd.concat([judged, scored[~scored["worker_id"].isin(judged["worker_id"])]])
    worst = pool.sort_values("score", kind="stable").drop_duplicates("worker_id")
    worst = worst.set_index("worker_id")
    failing = judged[judged["score"] < threshold].groupby("worker_id").size()
    grouped = per_unit.groupby("worker_id")
    evidence = grouped["evidence"].sum()
    flag = failing.reindex(worst.index, fill_value=0) > 0
    return result(
        workers,
        worst["score"].astype(float),
        evidence,
        flag,
        worst=worst["unit"].astype(str).reindex(workers).fillna(""),
        below=failing.reindex(workers, fill_value=0).astype(int),
        mean=grouped["score"].mean(),
    )


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
    values, others = values[enough], others[enough]
    groups, names = pd.factorize(keys.to_numpy()[enough], sort=True)
    score = _pearson_of_groups(groups, names, values, others)
    extra = {}
    if with_rho:
        ranks = ranks_within(groups, values), ranks_within(groups, others)
        extra["rho"] = _pearson_of_groups(groups, names, *ranks)
    flag = score < context.threshold(HeuristicKey.CONSENSUS_CORRELATION)
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
    return _pearson_of_groups(codes, uniques, x.to_numpy(dtype=float), y.to_numpy(dtype=float))


def _pearson_of_groups(codes: np.ndarray, uniques: Any, x: np.ndarray, y: np.ndarray) -> pd.Series:
    """`grouped_pearson` of groups already coded 0..len(uniques)-1 (sorted uniques)."""
    dx = _centred(codes, x)
    dy = _centred(codes, y)
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
    return pd.Series(ranks_within(codes, x.to_numpy(dtype=float)), index=x.index)


def _centred(codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` minus the mean of their group."""
    means = np.bincount(codes, values) / np.bincount(codes)
    centred: np.ndarray = values - means[codes]
    return centred
