"""What every heuristic needs besides the judgments: the scale, the items, and the policy.

Also the small helpers the heuristics share: the answered rows, the content rows, and the
result frame (``worker_id, score, evidence, flag``, one row per worker of the table, so that
reports line up). Where nothing can be said about a worker the score is NaN, the evidence 0
and the flag False.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from harness.roles import ItemRole
from harness.spec.heuristics import resolve_heuristic
from harness.spec.load import LoadedSpec
from harness.spec.model import Action, HeuristicPolicy
from harness.spec.scale import Scale

T = TypeVar("T")
RESULT_COLUMNS = ("worker_id", "score", "evidence", "flag")
MIN_OTHERS = 5  # other raters agreement heuristics want, when the study has that many


def min_others_for(raters_per_item: int) -> int:
    """Other raters H7/H8 need in a study of ``raters_per_item``: 5, or all others if fewer."""
    return max(1, min(MIN_OTHERS, raters_per_item - 1))


@dataclass(frozen=True)
class ScreeningContext:
    """The study a table of judgments belongs to, as far as screening needs it.

    ``items``: the item table (``item_id`` with optional ``role``, ``gold``, ``group``), used
    where the judgments themselves lack those columns. ``policy``: heuristic key -> policy;
    a heuristic without a policy, or a policy without a threshold, uses the catalogue default.
    ``min_others``: the other raters the agreement heuristics need before they may flag (H7:
    correlations with other workers; H8: other raters of each item counted). Early in a live
    study a worker's only partners may be careless ones, which is no evidence against them.
    ``references``: system name -> item_id -> score, the machine references H11 compares with.
    """

    scale: Scale
    items: pd.DataFrame | None = None
    policy: Mapping[str, HeuristicPolicy] = field(default_factory=dict)
    min_others: int = 1
    references: Mapping[str, pd.Series] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, loaded: LoadedSpec) -> ScreeningContext:
        """The context of a loaded task spec: its scale, item table and screening policy."""
        return cls(
            scale=loaded.scale,
            items=loaded.items,
            policy=dict(loaded.spec.screening),
            min_others=min_others_for(loaded.spec.raters_per_item),
            references=loaded.references,
        )

    def fitted_to(self, judgments: pd.DataFrame) -> ScreeningContext:
        """This context for a final table: ``min_others`` no more than its items' raters allow.

        A finished study with fewer raters per item than planned is still screened on what it
        has; live screening keeps the spec's figure, since more raters are on their way.
        """
        if judgments.empty:
            return self
        items, _ = pd.factorize(judgments["item_id"])
        workers, names = pd.factorize(judgments["worker_id"])
        pairs = pd.unique(items.astype(np.int64) * max(len(names), 1) + workers)
        raters = np.bincount(pairs // max(len(names), 1)).max()  # most raters of one item
        return replace(self, min_others=max(1, min(self.min_others, int(raters) - 1)))

    def _policy(self, key: str) -> HeuristicPolicy | None:
        info = resolve_heuristic(key)
        return self.policy.get(info.key) or self.policy.get(info.code)

    def threshold(self, key: str) -> float:
        """The policy's threshold for ``key``, else the catalogue default (unscaled)."""
        policy = self._policy(key)
        if policy is not None and policy.threshold is not None:
            return float(policy.threshold)
        return resolve_heuristic(key).default_threshold

    def states_threshold(self, key: str) -> bool:
        """Whether the policy sets ``key``'s threshold itself (not the catalogue default)."""
        policy = self._policy(key)
        return policy is not None and policy.threshold is not None

    def action(self, key: str) -> Action:
        """The policy's action for ``key`` (``report`` when the spec names none)."""
        policy = self._policy(key)
        return policy.action if policy is not None else Action.REPORT

    def item_column(self, judgments: pd.DataFrame, column: str) -> pd.Series:
        """Per row of ``judgments``: its own ``column`` if present, else the item table's."""
        if column in judgments.columns:
            own = judgments[column]
            if column != "role" or not _blank(own.to_numpy(dtype=object)).any():
                return own
        if self.items is not None and column in self.items.columns:
            lookup = self.items.drop_duplicates("item_id").set_index("item_id")[column]
            return judgments["item_id"].map(lookup)
        return pd.Series(np.nan, index=judgments.index, dtype=object)


@contextmanager
def sharing() -> Iterator[None]:
    """Within the block, what the heuristics derive from the same table is derived once.

    `screen_workers` runs every heuristic on one table: each would otherwise convert it to
    the answered rows, the content rows, the cells and the item aggregates again (at 1M
    judgments, most of the time). Inside the block `shared` keeps each result by the identity
    of the objects it came from; the block ends with the run, and the heuristics never modify
    what they are given, so a kept result is what a fresh call would give.
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


_SHARED: ContextVar[dict[tuple[Any, ...], tuple[Any, ...]] | None] = ContextVar(
    "screening_shared", default=None
)


def shared(kind: str, sources: tuple[object, ...], extra: Any, compute: Callable[[], T]) -> T:
    """``compute()``, or inside `sharing` the result kept for the same ``sources`` objects."""
    cache = _SHARED.get()
    if cache is None:
        return compute()
    key = (kind, *map(id, sources), extra)
    if key not in cache:
        cache[key] = (compute(), *sources)  # the sources are kept so that no id is reused
    found: T = cache[key][0]
    return found


def workers_of(judgments: pd.DataFrame) -> pd.Index:
    """Every worker in the table, in sorted order (skips included)."""
    return shared("workers", (judgments,), None, lambda: _workers_of(judgments))


def _workers_of(judgments: pd.DataFrame) -> pd.Index:
    workers: list[str] = sorted(judgments["worker_id"].astype(str).unique())
    return pd.Index(workers, name="worker_id")


def roles_of(judgments: pd.DataFrame, context: ScreeningContext) -> pd.Series:
    """Each row's role, ``item`` where neither the table nor the item table says otherwise."""
    role = context.item_column(judgments, "role").to_numpy(dtype=object)
    named = pd.notna(role) & ~_blank(role)
    return pd.Series(np.where(named, role, ItemRole.ITEM.value), index=judgments.index).astype(str)


def _blank(values: np.ndarray) -> np.ndarray:
    """Which of ``values`` (objects) are the empty text; a missing value is not (on plain
    objects: pandas' text columns cost more per call, and live screening calls often)."""
    present = pd.notna(values)
    blank = np.zeros(len(values), dtype=bool)
    blank[present] = values[present] == ""
    return blank


def answered(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """The answered rows (not skipped, a finite value) with ``worker_id`` as text and ``role``."""
    return shared("answered", (judgments, context), None, lambda: _answered(judgments, context))


def _answered(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    table = judgments.copy()
    # text held as Python objects: pandas hashes (groups, factorizes) them faster than its
    # string dtype, and the heuristics group by these columns again and again
    table["worker_id"] = table["worker_id"].astype(str).astype(object)
    table["item_id"] = table["item_id"].astype(str).astype(object)
    table["role"] = roles_of(table, context)
    table["value"] = pd.to_numeric(table["value"], errors="coerce").astype(float)
    keep: np.ndarray = np.isfinite(table["value"].to_numpy())
    if "skipped" in table.columns:
        keep &= ~table["skipped"].fillna(False).astype(bool).to_numpy()
    return table[keep]


def content(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Answered rows of real items (controls and second showings left out)."""

    def compute() -> pd.DataFrame:
        table = answered(judgments, context)
        return table[table["role"] == ItemRole.ITEM.value]

    return shared("content", (judgments, context), None, compute)


def result(
    workers: pd.Index,
    score: pd.Series,
    evidence: pd.Series,
    flag: pd.Series,
    **extra: pd.Series,
) -> pd.DataFrame:
    """The standard result frame over ``workers`` (missing: NaN score, evidence 0, no flag)."""
    scores = _aligned(score.to_numpy(dtype=float), score.index, workers, np.nan)
    flags = flag.to_numpy(dtype=bool, na_value=False)
    columns = {
        "worker_id": workers.to_numpy(),
        "score": scores,
        "evidence": _aligned(evidence.fillna(0).to_numpy(dtype=int), evidence.index, workers, 0),
        "flag": _aligned(flags, flag.index, workers, False) & np.isfinite(scores),
    }
    columns.update({name: series.reindex(workers).to_numpy() for name, series in extra.items()})
    return pd.DataFrame(columns)


def _aligned(values: np.ndarray, index: pd.Index, workers: pd.Index, missing: Any) -> np.ndarray:
    """``values`` (labelled by ``index``) for each of ``workers``, ``missing`` where absent:
    a reindex on plain arrays (every heuristic's result is built this way, live at each
    submission)."""
    at = index.get_indexer(workers)
    out = np.full(len(workers), missing, dtype=values.dtype)
    found = at >= 0
    out[found] = values[at[found]]
    return out
