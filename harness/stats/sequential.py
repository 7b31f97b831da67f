"""Adaptive collection's rule: which items still need raters, and which to ask about next.

An item's mean is precise enough when its 95% interval's half-width, t_{0.975, n-1} s / sqrt(n),
is at most the target. With few raters the sample sd s is itself uncertain, and an item whose
first raters happened to agree would stop at once and keep a mean far less precise than it
looks. So s^2 is shrunk toward the pooled variance of all items, as if that were ``prior``
extra degrees of freedom of evidence: s~^2 = (prior s_pool^2 + (n - 1) s^2) / (prior + n - 1).
An item is done when it has at least ``floor`` values and its half-width is within the
target, or when it has ``cap`` values. The next assignment asks about the unfinished items
farthest from the target (largest half-width over target), fewest values first on ties.

Pure functions over the long table (``item_id, value``); docs/methods.md, "Adaptive collection".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

PRIOR = 10.0
"""Degrees of freedom the pooled variance counts for in an item's shrunk variance."""
SURE = 0.9
"""How sure the rule must be that an item's sd is no larger than the one it stops on: the sd
used is the upper ``SURE`` confidence bound of the shrunk sd."""


@dataclass(frozen=True)
class Rule:
    """Adaptive collection's settings: the target half-width of an item mean's 95% interval,
    and the fewest and most values an item gets."""

    half_width: float
    floor: int = 5
    cap: int = 40
    prior: float = PRIOR
    sure: float = SURE

    def __post_init__(self) -> None:
        if not self.half_width > 0:
            raise ValueError(f"the target half-width must be positive, got {self.half_width}")
        if not 2 <= self.floor <= self.cap:
            raise ValueError(f"need 2 <= floor <= cap, got floor {self.floor}, cap {self.cap}")


def item_precision(
    judgments: pd.DataFrame, items: list[str], prior: float = PRIOR, sure: float = SURE
) -> pd.DataFrame:
    """For each of ``items``: its number of values ``n``, shrunk sd ``sd``, and the 95%
    half-width ``half_width`` its mean has if its sd is as large as the upper ``sure`` bound
    of ``sd`` (inf below 2 values), indexed by item id."""
    values = judgments.dropna(subset=["value"]).groupby("item_id")["value"]
    n = values.count().reindex(items, fill_value=0).astype(int)
    var = values.var(ddof=1).reindex(items)
    enough = n >= 2
    pooled = float(np.average(var[enough], weights=n[enough] - 1)) if enough.any() else np.nan
    dof = (n - 1).clip(lower=0)
    shrunk = (prior * pooled + dof * var.fillna(0.0)) / (prior + dof)
    sd = np.sqrt(shrunk)
    evidence = prior + dof  # the shrunk variance's degrees of freedom
    upper = sd * np.sqrt(evidence / stats.chi2.ppf(1 - sure, evidence)) if sure > 0 else sd
    t = pd.Series(stats.t.ppf(0.975, np.maximum(dof, 1)), index=items)
    half = (t * upper / np.sqrt(n.clip(lower=1))).where(enough, np.inf)
    return pd.DataFrame({"n": n, "sd": sd, "half_width": half})


def unfinished(precision: pd.DataFrame, rule: Rule) -> pd.Index:
    """The items that still need raters under ``rule``."""
    done = ((precision["n"] >= rule.floor) & (precision["half_width"] <= rule.half_width)) | (
        precision["n"] >= rule.cap
    )
    return precision.index[~done]


def next_items(precision: pd.DataFrame, rule: Rule, k: int) -> list[str]:
    """The ``k`` unfinished items to ask about next: farthest from the target first, then
    those with the fewest values; fewer when fewer are unfinished."""
    open_ = precision.loc[unfinished(precision, rule)]
    order = open_.assign(gap=open_["half_width"] / rule.half_width).sort_values(
        ["gap", "n"], ascending=[False, True], kind="stable"
    )
    return [str(i) for i in order.index[:k]]


def compose(
    precision: pd.DataFrame, rule: Rule, k: int, waiting: pd.Series, seen: set[str]
) -> list[str]:
    """Up to ``k`` items for a new assignment while others are under way: unfinished items
    the worker has not seen, whose values and ``waiting`` raters (asked, answers not in yet)
    stay below the cap; those with nobody waiting first (their precision is known), then as
    `next_items` orders them."""
    open_ = precision.loc[unfinished(precision, rule)]
    wait = waiting.reindex(open_.index, fill_value=0)
    keep = ((open_["n"] + wait) < rule.cap) & ~open_.index.isin(sorted(seen))
    order = (
        open_.assign(waits=wait > 0, gap=open_["half_width"] / rule.half_width)
        .loc[keep]
        .sort_values(["waits", "gap", "n"], ascending=[True, False, True], kind="stable")
    )
    return [str(i) for i in order.index[:k]]


def still_needed(precision: pd.DataFrame, rule: Rule) -> pd.Series:
    """How many more values each item needs to reach the target if its sd stays the shrunk
    sd it has now (at least up to the floor, at most up to the cap): the projection of what
    collection still costs. Items without an sd yet (fewer than 2 values, none pooled) are
    projected at the cap."""
    needed = {}
    for item, row in precision.iterrows():
        n, sd = int(row["n"]), float(row["sd"])
        done = n >= rule.cap or (n >= rule.floor and row["half_width"] <= rule.half_width)
        if done:
            needed[str(item)] = 0
            continue
        m = np.arange(max(n + 1, rule.floor, 2), rule.cap + 1)
        if np.isnan(sd) or m.size == 0:
            needed[str(item)] = max(rule.cap - n, 0)
            continue
        evidence = rule.prior + m - 1
        upper = sd * np.sqrt(evidence / stats.chi2.ppf(1 - rule.sure, evidence))
        half = stats.t.ppf(0.975, m - 1) * upper / np.sqrt(m)
        reach = m[half <= rule.half_width]
        needed[str(item)] = int((reach[0] if reach.size else rule.cap) - n)
    return pd.Series(needed, dtype=int)


def precision_history(
    judgments: pd.DataFrame, items: list[str], rule: Rule, points: int = 20
) -> pd.DataFrame:
    """Items' precision as the values came in (``judgments`` in arrival order): after each of
    up to ``points`` evenly spaced counts of values, the share of items at the target
    (`unfinished`'s complement) and the worst item's half-width (inf while some item has
    fewer than 2 values)."""
    values = judgments.dropna(subset=["value"]).reset_index(drop=True)
    if values.empty:
        return pd.DataFrame({"values": [], "at_target": [], "worst_half_width": []})
    counts = np.unique(np.linspace(1, len(values), min(points, len(values))).round().astype(int))
    rows = []
    for count in counts:
        now = item_precision(values.iloc[:count], items, rule.prior, rule.sure)
        share = 1 - len(unfinished(now, rule)) / max(len(items), 1)
        rows.append((int(count), share, float(now["half_width"].max())))
    return pd.DataFrame(rows, columns=["values", "at_target", "worst_half_width"])
