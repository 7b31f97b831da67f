"""What screening does to the figures: alpha (and systems' rho) for every subset of heuristics.

Removing workers after the fact raises agreement (docs/methods.md section 4, honesty rule), so the
report shows every figure for all judgments **and** for each screened set, side by side. This
module computes the side-by-side table; it never decides which subset to use.

Each heuristic is run once on the whole table; a subset removes every worker that any of its
heuristics flags (whatever the spec's action), and the figures are recomputed on the real
items (controls left out) of the workers kept. Subsets that remove the same workers share one
computation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations

import pandas as pd

from harness.errors import StatsError
from harness.screening.context import ScreeningContext, content
from harness.screening.correlation import pearson
from harness.screening.registry import HEURISTICS, resolve
from harness.screening.report import screen_workers
from harness.spec.heuristics import BY_KEY
from harness.spec.model import Action
from harness.spec.study_types import definition
from harness.stats import Level, krippendorff_alpha

MAX_HEURISTICS = 10  # 2^10 = 1024 subsets


def screening_impact(
    judgments: pd.DataFrame,
    context: ScreeningContext,
    systems: Mapping[str, pd.Series | pd.DataFrame] | None = None,
    *,
    heuristics: Iterable[str] | None = None,
    level: Level | None = None,
) -> pd.DataFrame:
    """The figures after screening with every subset of the heuristics, next to no screening.

    ``heuristics``: keys or codes (default: every heuristic the policy names, whatever its
    action; when it names none, every heuristic of the catalogue that flags someone, at most
    `MAX_HEURISTICS`). ``systems``: name -> predictions, a Series
    indexed by ``item_id`` or a frame with ``item_id, score``. ``level``: alpha's level
    (default: interval for rating studies, ordinal for Likert and pair comparison).

    One row per subset, the unscreened row (``subset`` empty, ``label`` "none") first, then by
    size in catalogue order. Columns:

    - ``subset``: tuple of heuristic keys; ``label``: their codes joined by "+" ("none");
      ``size``: how many heuristics; ``policy``: true on the row of exactly the heuristics
      whose spec action is not ``report`` (what the spec's policy screens with);
    - ``workers_removed``, ``workers_kept``, ``judgments_kept``, ``items_kept``: what is left
      (judgments and items: answered real items);
    - ``alpha``: Krippendorff's alpha of what is left (NaN when it is undefined);
      ``alpha_change``: alpha minus the unscreened alpha;
    - per system ``rho:<name>``: Spearman rho between the system's scores and the item means of
      what is left (items both have), and ``rho_change:<name>`` against the unscreened rho.
    """
    named = heuristics is not None or bool(context.policy)
    keys = _keys(heuristics, context, limit=named)
    report = screen_workers(judgments, context, keys)
    flags = {
        key: set(frame.loc[frame["flag"], "worker_id"]) for key, frame in report.results.items()
    }
    if not named:  # the whole catalogue: a heuristic that flags nobody only repeats rows
        keys = [k for k in keys if flags[k]]
        _check_count(keys)
    rows = content(judgments, context)
    predictions = {name: _scores(name, table) for name, table in (systems or {}).items()}
    chosen = level or _default_level(context)
    figures: dict[frozenset[str], dict[str, float]] = {}
    acting = tuple(k for k in keys if context.action(k) is not Action.REPORT)
    records = []
    for size in range(len(keys) + 1):
        for subset in combinations(keys, size):
            removed = frozenset().union(*(flags[k] for k in subset))
            if removed not in figures:
                figures[removed] = _figures(rows, removed, predictions, chosen)
            records.append(
                {
                    "subset": subset,
                    "label": "+".join(BY_KEY[k].code for k in subset) or "none",
                    "size": size,
                    "policy": subset == acting,
                    "workers_removed": len(removed),
                    **figures[removed],
                }
            )
    table = pd.DataFrame(records)
    base = table.iloc[0]
    after = list(table.columns).index("alpha") + 1
    table.insert(after, "alpha_change", table["alpha"] - base["alpha"])
    for name in predictions:
        table[f"rho_change:{name}"] = table[f"rho:{name}"] - base[f"rho:{name}"]
    return table


def _check_count(keys: list[str]) -> None:
    if len(keys) > MAX_HEURISTICS:
        raise ValueError(
            f"at most {MAX_HEURISTICS} heuristics (2^k subsets), not {len(keys)}: name them"
        )


def _keys(
    heuristics: Iterable[str] | None, context: ScreeningContext, *, limit: bool = True
) -> list[str]:
    names = list(heuristics) if heuristics is not None else list(context.policy) or list(HEURISTICS)
    keys = list(dict.fromkeys(resolve(n) for n in names))
    unknown = [k for k in keys if k not in HEURISTICS]
    if unknown:
        raise KeyError(f"not a screening heuristic (radical/centrist only report): {unknown}")
    if limit:
        _check_count(keys)
    order: list[str] = list(HEURISTICS)
    return sorted(keys, key=order.index)


def _default_level(context: ScreeningContext) -> Level:
    return definition(context.scale.kind).alpha_level


def _scores(name: str, table: pd.Series | pd.DataFrame) -> pd.Series:
    if isinstance(table, pd.DataFrame):
        if not {"item_id", "score"} <= set(table.columns):
            raise ValueError(f"system {name!r}: expected columns item_id and score")
        table = table.set_index("item_id")["score"]
    scores = pd.to_numeric(table, errors="coerce")
    scores.index = scores.index.astype(str)
    return scores.groupby(level=0).mean()


def _figures(
    rows: pd.DataFrame, removed: frozenset[str], predictions: dict[str, pd.Series], level: Level
) -> dict[str, float]:
    kept = rows[~rows["worker_id"].isin(removed)]
    out: dict[str, float] = {
        "workers_kept": kept["worker_id"].nunique(),
        "judgments_kept": len(kept),
        "items_kept": kept["item_id"].nunique(),
    }
    try:
        out["alpha"] = krippendorff_alpha(kept[["item_id", "worker_id", "value"]], level)
    except StatsError:
        out["alpha"] = float("nan")
    means = kept.groupby("item_id")["value"].mean()
    for name, scores in predictions.items():
        both = pd.concat([means, scores], axis=1, join="inner").dropna()
        out[f"rho:{name}"] = _spearman(both.iloc[:, 0], both.iloc[:, 1])
    return out


def _spearman(x: pd.Series, y: pd.Series) -> float:
    """Spearman rho: Pearson r of average ranks (NaN when either side is constant)."""
    if len(x) < 3:
        return float("nan")
    return pearson(x.rank().to_numpy(), y.rank().to_numpy())
