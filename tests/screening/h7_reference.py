"""H7's per-unit correlations as harness computed them before they were vectorized: one block of
items x workers per (worker, unit), `pearson` on each column. Kept as the reference the
vectorized `harness.screening.correlation.unit_correlations` is tested against."""

from __future__ import annotations

from collections.abc import Collection, Hashable

import numpy as np
import pandas as pd

from harness.screening.correlation import MIN_SHARED, TOP


def unit_correlations(
    rows: pd.DataFrame, units: Collection[tuple[Hashable, Hashable]] | None = None
) -> pd.DataFrame:
    columns = ["worker_id", "unit", "score", "evidence"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    cell = rows.groupby(["item_id", "worker_id"], sort=True)["value"].mean()
    item_codes, items = pd.factorize(cell.index.get_level_values("item_id"))
    worker_codes, workers = pd.factorize(cell.index.get_level_values("worker_id"))
    values = cell.to_numpy(dtype=float)
    bounds = np.searchsorted(item_codes, np.arange(len(items) + 1))
    item_index = pd.Index(items)
    shown = rows[["worker_id", "unit", "item_id"]].drop_duplicates()
    shown_items = item_index.get_indexer(pd.Index(shown["item_id"]))
    unit_codes, unit_names = pd.factorize(shown["unit"])
    shown_workers, worker_names = pd.factorize(shown["worker_id"])
    own_code = pd.Index(workers).get_indexer(pd.Index(worker_names))
    pair = shown_workers.astype(np.int64) * max(len(unit_names), 1) + unit_codes
    order = np.argsort(pair, kind="stable")
    starts = np.flatnonzero(np.r_[True, pair[order][1:] != pair[order][:-1]])
    out = []
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
