"""Systems measured by the instrument (METHODS.md section 6): what it can say about them.

``scores`` maps each system's name to its prediction per item (item_id -> score); every
instrument is a long judgment table. For each instrument, over its items (means of their values):

- **rho**: Spearman's rho of each system's scores against the item means;
- **per-rater rho**: each system's Spearman rho against each rater's own values (raters with at
  least ``MIN_RATER_ITEMS`` (5) valued items and some variation); per system n, min, max, mean
  and sd (ddof = 1) over raters; two two-tailed t-tests between every two systems, both
  reported and labelled: **paired** over the raters both have a rho for (the raters are the
  same people, so the rhos are paired), and **Student's** unpaired t with equal variances (the
  test of the WS353 study's Table 3);
- **distance correlation**: over the item pairs i < j, Pearson's r between the instrument's
  signed differences m_i - m_j and the system's s_i - s_j (each l2-normalised, which does not
  change r), over the item pairs whose instrument distance |m_i - m_j| is at least t, for
  t = 0, 0.9, 1.8, 2.7, 3.6 on a 0-10 scale (9% of the range per step) and at the resolution
  when it is known, with the count of pairs at each t;
- **the Spearman test** (`harness.stats.spearman_difference`) between every two systems'
  rhos on n items: a Fisher-z test with the rhos' own variance, which holds its size on
  Spearman rhos (methods.md section 6);
- **Steiger's test** (1980, Z with pooled r; `harness.stats.dependent.steiger_z`), made for
  Pearson's r: kept beside it, labelled, to compare with published figures; on Spearman rhos
  it rejects too often;
- **MRDS** (`harness.stats.spearman_difference.spearman_mrds_table`) for the instrument's n
  items;
- **verdict** per pair of systems: whether the instrument tells them apart (the Spearman
  test's p < 0.05), with their rho difference, its standard error, the difference this pair
  needs (the smallest that the test, with the pair's own variance, calls p < 0.05), and the
  t-tests.

Correlations use scipy; a rater whose values (or a system whose scores) do not vary has no rho.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from harness.characterize.pair_counts import SignedPairSums
from harness.characterize.rank_stability import TOLERANCE
from harness.errors import InputError
from harness.stats._table import valued
from harness.stats.correlation import grouped_spearman
from harness.stats.dependent import steiger_z
from harness.stats.spearman_difference import (
    compare_spearman,
    required_difference,
    spearman_mrds_table,
)

MIN_RATER_ITEMS = 5
DISTANCE_STEPS = (0.0, 0.09, 0.18, 0.27, 0.36)  # shares of the scale's range
P0 = 0.05
_FLAT = 1e-12  # variance of differences, relative to the squared range, below which a side is flat
_MAX_NAMED = 5


@dataclass(frozen=True)
class InstrumentSystems:
    """Every systems figure on one instrument."""

    n_items: int
    rho: pd.Series  # system -> rho against the item means
    per_rater: pd.DataFrame  # raters x systems
    per_rater_stats: pd.DataFrame  # system -> n_raters, min, max, mean, sd
    t_tests: pd.DataFrame  # T_TEST_COLUMNS: paired and Student t-tests over per-rater rhos
    distance: pd.DataFrame  # system, threshold, r, n_pairs
    steiger: pd.DataFrame  # a, b, rho_a, rho_b, r_ab, n, z, p (Steiger, for Pearson's r)
    mrds: pd.DataFrame  # r x p0, the Spearman test's
    verdicts: pd.DataFrame  # VERDICT_COLUMNS

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "rho": _floats(self.rho.to_dict()),
            "per_rater": {
                s: _floats(self.per_rater_stats.loc[s].to_dict())
                for s in self.per_rater_stats.index
            },
            "t_tests": _records(self.t_tests),
            "distance_correlation": _records(self.distance),
            "steiger": _records(self.steiger),
            "mrds": mrds_records(self.mrds, self.n_items),
            "verdicts": _records(self.verdicts),
        }


@dataclass(frozen=True)
class Systems:
    names: list[str]
    by_instrument: dict[str, InstrumentSystems] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``<system>.rho.<instrument>`` and the rest per instrument under ``by_instrument``."""
        out: dict[str, Any] = {
            name: {"rho": {k: float(v.rho[name]) for k, v in self.by_instrument.items()}}
            for name in self.names
        }
        out["by_instrument"] = {k: v.to_dict() for k, v in self.by_instrument.items()}
        return out


def check_system_items(
    scores: pd.Series, items: Sequence[str], *, system: str, instrument: str, source: str
) -> None:
    """Raise `InputError` naming ``source`` when the system has no score for some items."""
    missing = sorted(set(items) - set(scores.dropna().index))
    if missing:
        named = ", ".join(missing[:_MAX_NAMED]) + (" ..." if len(missing) > _MAX_NAMED else "")
        raise InputError(
            f"{source}: system {system!r} has no score for {len(missing)} of the "
            f"{len(set(items))} items of {instrument} ({named}); a system file needs a score "
            "for every item (columns item_id, score)"
        )


def instrument_systems(
    judgments: pd.DataFrame,
    scores: Mapping[str, pd.Series],
    *,
    scale_range: float = 10.0,
    resolution: float | None = None,
) -> InstrumentSystems:
    """Every systems figure of ``scores`` on the instrument of ``judgments``."""
    values = valued(judgments).astype({"value": float})
    means = values.groupby("item_id")["value"].mean()
    names = list(scores)
    frame = pd.DataFrame({n: scores[n].reindex(means.index) for n in names})
    rho = pd.Series({n: _spearman(means.to_numpy(), frame[n].to_numpy()) for n in names})
    per_rater = _per_rater(values, frame)
    thresholds = [s * scale_range for s in DISTANCE_STEPS]
    if resolution is not None and all(abs(resolution - t) > TOLERANCE for t in thresholds):
        thresholds = sorted([*thresholds, resolution])
    n = len(means)
    t_tests = _t_tests(per_rater)
    steiger = _steiger(rho, frame, n)
    return InstrumentSystems(
        n_items=n,
        rho=rho,
        per_rater=per_rater,
        per_rater_stats=_rater_stats(per_rater),
        t_tests=t_tests,
        distance=distance_correlation(means, frame, thresholds),
        steiger=steiger,
        mrds=spearman_mrds_table(n),
        verdicts=_verdicts(means, frame, steiger, t_tests),
    )


def systems(
    instruments: Mapping[str, pd.DataFrame],
    scores: Mapping[str, pd.Series],
    *,
    scale_range: float = 10.0,
    resolution: float | None = None,
) -> Systems:
    """`instrument_systems` for each named instrument (e.g. "new" and "original")."""
    return Systems(
        names=list(scores),
        by_instrument={
            name: instrument_systems(table, scores, scale_range=scale_range, resolution=resolution)
            for name, table in instruments.items()
        },
    )


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho (Pearson of mid-ranks); NaN when either side does not vary."""
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(stats.spearmanr(a, b).statistic)


def _per_rater(values: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """Raters x systems: each system's rho against the rater's values on the rater's items.

    A rater's value on an item is the mean of their values there; raters with fewer than
    ``MIN_RATER_ITEMS`` items get no row. All raters at once (`grouped_spearman`), the same
    figure as `_spearman` per rater.
    """
    items, item_names = pd.factorize(values["item_id"])
    raters, names = pd.factorize(values["worker_id"], sort=True)
    if not len(frame.columns):
        return pd.DataFrame(index=pd.Index([], name="worker_id"))
    key = raters.astype(np.int64) * max(len(item_names), 1) + items
    cell = pd.Series(values["value"].to_numpy(dtype=float)).groupby(key).mean()
    keys = cell.index.to_numpy()
    raters = keys // max(len(item_names), 1)
    cell_items = keys % max(len(item_names), 1)
    own = cell.to_numpy()
    enough = np.bincount(raters, minlength=len(names)) >= MIN_RATER_ITEMS
    kept = enough[raters]
    by_item = frame.reindex(pd.Index(item_names)).to_numpy(dtype=float)  # items x systems
    scores = by_item[cell_items]
    rho = np.column_stack(
        [  # a system without a score on some item: its rhos leave that item out
            grouped_spearman(raters[ok], own[ok], scores[ok, s], len(names))
            for s in range(scores.shape[1])
            for ok in [kept & ~np.isnan(scores[:, s])]
        ]
    )
    return pd.DataFrame(
        rho[enough], index=pd.Index(names[enough], name="worker_id"), columns=list(frame.columns)
    )


def _rater_stats(per_rater: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "n_raters": per_rater.notna().sum(),
            "min": per_rater.min(),
            "max": per_rater.max(),
            "mean": per_rater.mean(),
            "sd": per_rater.std(ddof=1),
        }
    )


T_TEST_COLUMNS = [
    "a",
    "b",
    "n_raters",
    "mean_difference",
    "t_paired",
    "df_paired",
    "p_paired",
    "n_raters_a",
    "n_raters_b",
    "t_student",
    "df_student",
    "p_student",
]


def _t_tests(per_rater: pd.DataFrame) -> pd.DataFrame:
    """Two two-tailed t-tests of system b's per-rater rhos against system a's.

    - **paired** (scipy's ``ttest_rel``, df = n - 1) over the raters both systems have a rho
      for: the raters are the same people, so each rater's two rhos are a pair;
    - **Student** (scipy's ``ttest_ind`` with equal variances, df = n_a + n_b - 2), which
      treats the two systems' rhos as independent samples: the test of the WS353 study's
      Table 3 (13 raters), reported beside the paired one so its t can be compared.
    """
    rows = []
    nan = float("nan")
    for a, b in combinations(per_rater.columns, 2):
        both = per_rater[[a, b]].dropna()
        diff = both[b] - both[a]
        t_paired = p_paired = nan
        if len(both) >= 2 and np.ptp(diff.to_numpy()) > 0:
            paired = stats.ttest_rel(both[b], both[a])
            t_paired, p_paired = float(paired.statistic), float(paired.pvalue)
        own_a, own_b = per_rater[a].dropna(), per_rater[b].dropna()
        t_student = p_student = nan
        if min(len(own_a), len(own_b)) >= 2 and own_a.var() + own_b.var() > 0:
            student = stats.ttest_ind(own_b, own_a, equal_var=True)
            t_student, p_student = float(student.statistic), float(student.pvalue)
        rows.append(
            {
                "a": a,
                "b": b,
                "n_raters": len(both),
                "mean_difference": float(diff.mean()),
                "t_paired": t_paired,
                "df_paired": max(len(both) - 1, 0),
                "p_paired": p_paired,
                "n_raters_a": len(own_a),
                "n_raters_b": len(own_b),
                "t_student": t_student,
                "df_student": max(len(own_a) + len(own_b) - 2, 0),
                "p_student": p_student,
            }
        )
    return pd.DataFrame(rows, columns=T_TEST_COLUMNS)


def distance_correlation(
    means: pd.Series, frame: pd.DataFrame, thresholds: list[float]
) -> pd.DataFrame:
    """Pearson r of signed item-pair differences at each threshold, from `SignedPairSums`.

    O(n log^2 n) per threshold: the pairs are counted and summed through sorted means, never
    enumerated. The l2-normalisation of METHODS.md scales every difference of one side by the
    same number, which leaves r unchanged, so it is not applied. A side whose differences
    vary over the pairs by less than a millionth of its range over all items (variance below
    ``_FLAT`` times the squared range) has no r, as a constant one has none: differences that
    small are round-off of the scores, not a ranking.
    """
    pairs = SignedPairSums(means.to_numpy(dtype=float))
    scores = frame.to_numpy(dtype=float)
    rows_out = []
    sums = [pairs.sums(scores, t - TOLERANCE) for t in thresholds]
    range_x = _range(means.to_numpy(dtype=float))
    for s, name in enumerate(frame.columns):
        range_y = _range(scores[:, s])
        for t, at in zip(thresholds, sums, strict=True):
            count, sx, sy, sxx, syy, sxy = at[s]
            vx, vy = count * sxx - sx * sx, count * syy - sy * sy
            floor = _FLAT * count * count
            usable = count >= 3 and vx > floor * range_x**2 and vy > floor * range_y**2
            r = (count * sxy - sx * sy) / np.sqrt(vx * vy) if usable else float("nan")
            rows_out.append(
                {"system": name, "threshold": float(t), "r": float(r), "n_pairs": int(count)}
            )
    return pd.DataFrame(rows_out, columns=["system", "threshold", "r", "n_pairs"])


def _range(values: np.ndarray) -> float:
    """max - min of the values that are numbers (0 when none are)."""
    finite = values[np.isfinite(values)]
    return float(finite.max() - finite.min()) if len(finite) else 0.0


def _steiger(rho: pd.Series, frame: pd.DataFrame, n: int) -> pd.DataFrame:
    rows = []
    for a, b in combinations(frame.columns, 2):
        r_ab = _spearman(frame[a].to_numpy(), frame[b].to_numpy())
        usable = all(np.isfinite(v) and abs(v) < 1 for v in (rho[a], rho[b], r_ab)) and n >= 4
        # Steiger's Z is signed rho_a - rho_b; stored as rho_b - rho_a, like "difference".
        test = steiger_z(float(rho[b]), float(rho[a]), r_ab, n) if usable else None
        rows.append(
            {
                "a": a,
                "b": b,
                "rho_a": float(rho[a]),
                "rho_b": float(rho[b]),
                "r_ab": r_ab,
                "n": n,
                "z": test.statistic if test else float("nan"),
                "p": test.p if test else float("nan"),
            }
        )
    return pd.DataFrame(rows, columns=["a", "b", "rho_a", "rho_b", "r_ab", "n", "z", "p"])


def _verdicts(
    means: pd.Series, frame: pd.DataFrame, steiger: pd.DataFrame, t_tests: pd.DataFrame
) -> pd.DataFrame:
    """Per pair: the Spearman test, and the difference this pair needs for p < P0.

    The needed difference comes from the pair's own variance (their correlation with each
    other and the shape of their scores), not from a planning table, and is larger than
    Steiger's test would claim for Spearman rhos (methods.md section 6 has the figures). z is
    signed like the difference, rho B - rho A.
    """
    rows = []
    instrument = means.to_numpy(dtype=float)
    for (_, s), (_, t) in zip(steiger.iterrows(), t_tests.iterrows(), strict=True):
        a, b = frame[s["a"]].to_numpy(dtype=float), frame[s["b"]].to_numpy(dtype=float)
        ok = np.isfinite(instrument) & np.isfinite(a) & np.isfinite(b)
        usable = np.isfinite(s["p"])
        test = compare_spearman(instrument[ok], a[ok], b[ok]) if usable else None
        needed = required_difference(instrument[ok], a[ok], b[ok], P0) if usable else np.nan
        rows.append(
            {
                "a": s["a"],
                "b": s["b"],
                "difference": s["rho_b"] - s["rho_a"],
                "r_ab": s["r_ab"],
                "se": test.se if test else np.nan,
                "mrds": needed,
                "z": test.z if test else np.nan,
                "p": test.p if test else np.nan,
                "steiger_p": s["p"],
                "paired_t_p": t["p_paired"],
                "student_t_p": t["p_student"],
                "distinguishable": bool(test is not None and np.isfinite(test.p) and test.p < P0),
            }
        )
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


VERDICT_COLUMNS = [
    "a",
    "b",
    "difference",
    "r_ab",
    "se",
    "mrds",
    "z",
    "p",
    "steiger_p",
    "paired_t_p",
    "student_t_p",
    "distinguishable",
]


def mrds_records(table: pd.DataFrame, n: int) -> list[dict[str, float]]:
    """An MRDS table as JSON rows {n, r, p0, mrds}."""
    return [
        {"n": n, "r": float(r), "p0": float(p0), "mrds": float(table.loc[r, p0])}
        for r in table.index
        for p0 in table.columns
    ]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [_floats(r) for r in frame.to_dict(orient="records")]


def _floats(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in mapping.items():
        if isinstance(v, (bool, np.bool_)):
            out[str(k)] = bool(v)
        elif isinstance(v, (int, np.integer)):
            out[str(k)] = int(v)
        elif isinstance(v, (float, np.floating)):
            out[str(k)] = float(v)
        else:
            out[str(k)] = v
    return out
