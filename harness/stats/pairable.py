"""Pairable values: the part of a long judgment table that Krippendorff's alpha is computed from.

A value is *pairable* when it is not a skip and its item holds at least one other non-skip value
(Krippendorff 2011, "Computing Krippendorff's alpha-reliability", section C: units with m_u < 2
values are "not pairable" and drop out). Everything here is O(number of judgments): items and
values are factorized to integer codes, never spread into a workers x items matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.errors import JudgmentsError, StatsError
from harness.stats._table import carries_value


@dataclass(frozen=True)
class Pairable:
    """The pairable values of a table, grouped by item (rows sorted by ``unit``).

    ``unit`` holds item codes 0..n_units-1, ``values`` the values (float64, or int64 label codes
    for nominal data, with the labels in ``labels``), ``m`` the number of values per unit (all
    >= 2). The ``n_*`` counts describe the whole table the values came from.
    """

    unit: np.ndarray
    values: np.ndarray
    m: np.ndarray
    labels: np.ndarray | None
    n_items: int
    n_workers: int | None
    n_judgments: int

    @property
    def n_units(self) -> int:
        """Items with at least two pairable values."""
        return len(self.m)

    @property
    def n_values(self) -> int:
        """n.. in Krippendorff's notation: the number of pairable values."""
        return len(self.values)

    @property
    def n_pairs(self) -> int:
        """Unordered pairs of values within items: sum_u m_u (m_u - 1) / 2."""
        m = self.m.astype(np.int64)
        return int((m * (m - 1) // 2).sum())


def pairable_values(
    judgments: pd.DataFrame, *, numeric: bool = True, count_workers: bool = True
) -> Pairable:
    """Extract the pairable values of a long table (``item_id, worker_id, value[, skipped]``).

    Skipped judgments (``skipped`` true, or a missing value) are not values. With
    ``numeric=True`` every value must be a finite number; otherwise values are labels compared
    for equality (nominal data). ``count_workers=False`` leaves ``n_workers`` as None (saves a
    hash of the worker ids when only alpha is wanted). Raises `JudgmentsError` for a table
    without the needed columns or with non-numeric values, and `StatsError` when no item has
    two values.
    """
    missing = [c for c in ("item_id", "worker_id", "value") if c not in judgments.columns]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; agreement needs item_id, worker_id, value"
        )
    if len(judgments) == 0:
        raise JudgmentsError("no judgments: the table is empty")
    raw = judgments["value"]
    keep = carries_value(judgments).to_numpy()
    items, item_uniques = pd.factorize(judgments["item_id"])
    n_workers = None
    if count_workers:
        n_workers = len(pd.unique(judgments["worker_id"].to_numpy()[keep]))
    labels: np.ndarray | None = None
    if numeric:
        values = _as_numbers(raw if keep.all() else raw[keep])
    else:
        codes, uniques = pd.factorize(raw[keep], sort=True)
        values = codes.astype(np.int64)
        labels = np.asarray(uniques)
    return pairable_from_codes(
        items[keep].astype(np.int64),
        values,
        labels=labels,
        n_items=len(item_uniques),
        n_workers=n_workers,
    )


def pairable_from_codes(
    items: np.ndarray,
    values: np.ndarray,
    *,
    labels: np.ndarray | None = None,
    n_items: int | None = None,
    n_workers: int | None = None,
) -> Pairable:
    """Build `Pairable` from parallel arrays: item codes (any ints) and their (non-skip) values."""
    items = np.asarray(items)
    values = np.asarray(values)
    if values.dtype.kind == "f":
        ok = ~np.isnan(values)
        if not ok.all():
            items, values = items[ok], values[ok]
    n_judgments = len(values)
    if (
        items.dtype.kind in "iu"
        and len(items)
        and items.min() >= 0
        and items.max() < 4 * len(items)
    ):
        codes = items.astype(np.int64)  # already small non-negative codes: no hashing needed
        n_codes = int(codes.max()) + 1
    else:
        codes, uniques = pd.factorize(items)
        n_codes = len(uniques)
    counts = np.bincount(codes, minlength=n_codes)
    keep = counts[codes] >= 2
    if not keep.any():
        raise StatsError(
            "no item has two or more values (skips do not count), so there is nothing to pair: "
            "agreement is undefined"
        )
    # Renumber the kept items 0..U-1 and group rows by item (each step skipped when idle).
    present = np.flatnonzero(counts >= 2)
    if len(present) == len(counts):
        unit = codes
    else:
        codes, values = codes[keep], values[keep]
        renumber = np.full(len(counts), -1, dtype=np.int64)
        renumber[present] = np.arange(len(present))
        unit = renumber[codes]
    if len(unit) and (unit[1:] < unit[:-1]).any():
        order = np.argsort(unit, kind="stable")
        unit, values = unit[order], values[order]
    return Pairable(
        unit=unit,
        values=values,
        m=counts[present].astype(np.int64),
        labels=labels,
        n_items=int(n_items if n_items is not None else np.count_nonzero(counts)),
        n_workers=n_workers,
        n_judgments=n_judgments,
    )


def _as_numbers(raw: pd.Series) -> np.ndarray:
    """Values as float64; any text that is not a finite number is a `JudgmentsError`."""
    if pd.api.types.is_numeric_dtype(raw) and not pd.api.types.is_bool_dtype(raw):
        numbers = raw.to_numpy(dtype=np.float64)
    else:
        coerced = pd.to_numeric(raw, errors="coerce")
        bad = coerced.isna().to_numpy()
        if bad.any():
            examples = ", ".join(repr(v) for v in pd.unique(raw[bad])[:5])
            raise JudgmentsError(
                f"value: {int(bad.sum())} value(s) are not numbers (e.g. {examples}); a numeric "
                "level (ordinal, interval, ratio) needs numbers, or use --level nominal"
            )
        numbers = coerced.to_numpy(dtype=np.float64)
    if not np.isfinite(numbers).all():
        raise JudgmentsError("value: infinite values cannot be agreed on; expected finite numbers")
    return numbers


def unit_value_counts(p: Pairable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The table n_uc of how often value c occurs in unit u, as sparse triplets.

    Returns ``(distinct, unit, value_index, count)``: the sorted distinct pairable values and,
    for every (unit, value) that occurs, the unit, the index into ``distinct`` and the count.
    Rows come sorted by unit, then value. O(n log n).
    """
    distinct, inverse = np.unique(p.values, return_inverse=True)
    width = len(distinct)
    keys, counts = np.unique(p.unit * width + inverse, return_counts=True)
    return distinct, keys // width, keys % width, counts.astype(np.int64)
