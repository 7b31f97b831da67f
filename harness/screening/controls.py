"""Heuristics on built-in controls: H4 high random, H9 gold failure, H10 calibration failure;
and each control check passed or failed (`control_checks`, for figures about the controls).

They read each row's role (and gold answer) from the judgments, or from the item table of the
context where the judgments lack them (docs/methods.md section 3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from harness.roles import ItemRole
from harness.screening.context import ScreeningContext, answered, result, workers_of
from harness.spec.heuristics import HeuristicKey

MIN_GOLD = 2  # H9 needs at least two gold items
IDENTICAL_TOLERANCE = 0.10  # H10: identical pair below max - 10% of the range fails
REPEAT_TOLERANCE = 0.25  # H10: two showings more than a quarter of the range apart fail
SIGNIFICANCE = 0.01  # H10 at its default: one-sided binomial p below which a worker is flagged
REPEATABLE = (ItemRole.ITEM.value, ItemRole.GOLD.value, ItemRole.CONTROL_GROUP.value)
"""Roles of the items a plan may show twice (content items, gold included): the first showing
keeps the item's role, the later one is ``repeat``."""


def shown_twice(rows: pd.DataFrame) -> pd.DataFrame:
    """Every showing of an item the worker answered twice or more: the later showings
    (``repeat``) with the first, whatever the item's own role (a gold or control-group item
    may be repeated too)."""
    shown = rows[rows["role"].isin([*REPEATABLE, ItemRole.REPEAT.value])]
    return shown[shown.duplicated(["worker_id", "item_id"], keep=False)]


def _repeat_spreads(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per (worker, item) of `shown_twice`: the worker, and the largest minus the smallest
    value (on integer codes: grouping by two text columns costs more, live at every
    submission)."""
    shown = rows["role"].isin([*REPEATABLE, ItemRole.REPEAT.value]).to_numpy()
    worker, workers = pd.factorize(rows["worker_id"].to_numpy()[shown])
    item, items = pd.factorize(rows["item_id"].to_numpy()[shown])
    width = max(len(items), 1)
    pair, pairs = pd.factorize(worker.astype(np.int64) * width + item)
    twice = (np.bincount(pair, minlength=len(pairs)) >= 2)[pair]
    pair, code = pd.factorize(pair[twice])  # the pairs shown twice, coded again
    values = rows["value"].to_numpy(dtype=float)[shown][twice]
    high = np.full(len(code), -np.inf)
    low = np.full(len(code), np.inf)
    np.maximum.at(high, pair, values)
    np.minimum.at(low, pair, values)
    return np.asarray(workers)[np.asarray(pairs)[code] // width], high - low


def high_random(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H4: mean on random pairs minus mean on real items; flag above the threshold (0).

    Strictly above, as published: a worker who rates random pairs exactly as high as real ones
    on average (a straight-liner's difference of 0) is left to H3; the evidence is the number
    of random pairs rated; NaN without both kinds of item.
    """
    rows = answered(judgments, context)
    random_pairs = rows[rows["role"] == ItemRole.RANDOM_PAIR.value].groupby("worker_id")["value"]
    real = rows[rows["role"] == ItemRole.ITEM.value].groupby("worker_id")["value"].mean()
    score = random_pairs.mean() - real
    flag = score > context.threshold(HeuristicKey.HIGH_RANDOM)
    return result(workers_of(judgments), score, random_pairs.size(), flag)


def gold_failure(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H9: share of gold items not within one step of the designated answer.

    Flag above the threshold (0.5) with at least two gold items.
    """
    rows = answered(judgments, context)
    gold = pd.to_numeric(context.item_column(rows, "gold"), errors="coerce")
    rows = rows.assign(gold=gold)[gold.notna()]
    missed = (rows["value"] - rows["gold"]).abs() > context.scale.step + 1e-9
    grouped = missed.groupby(rows["worker_id"])
    share = grouped.mean().astype(float)
    count = grouped.size()
    flag = (share > context.threshold(HeuristicKey.GOLD_FAILURE)) & (count >= MIN_GOLD)
    return result(workers_of(judgments), share, count, flag)


def calibration_failure(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H10: share of failed calibration checks; flagged when a careful worker would fail that
    many by chance less than 1% of the time.

    A check is an identical pair (fails below max - 10% of the range) or a repeated item, i.e.
    an item the worker answered twice (fails when the showings differ by more than a quarter of
    the range). The evidence is the number of checks. A careful worker fails some checks by
    chance, so the default flags only what chance does not explain: k failures of n checks
    with a one-sided binomial P(X >= k; n, rate) < `SIGNIFICANCE`, rate being the threshold
    (the catalogue's careful failure rate). That holds careful workers to at most 1% at any
    number of checks, whatever their number; docs/screening.md has the rates per archetype.
    A spec that states its own threshold decides by the share from the first check, the
    published rule: ``{threshold: 0}`` is its "any failure".
    """
    scale = context.scale
    rows = answered(judgments, context)
    role = rows["role"].to_numpy()
    identical = role == ItemRole.IDENTICAL.value
    identical_fail = rows["value"].to_numpy()[identical] < (
        scale.max - IDENTICAL_TOLERANCE * scale.range - 1e-9
    )
    repeated, gap = _repeat_spreads(rows)
    repeat_fail = gap > REPEAT_TOLERANCE * scale.range + 1e-9
    checked = np.concatenate([rows["worker_id"].to_numpy()[identical], repeated])
    fails = np.concatenate([identical_fail, repeat_fail]).astype(float)
    codes, names = pd.factorize(checked)
    count = pd.Series(np.bincount(codes, minlength=len(names)), index=names, dtype=int)
    failures = pd.Series(np.bincount(codes, fails, minlength=len(names)), index=names)
    share = failures / count
    key = HeuristicKey.CALIBRATION_FAILURE
    if context.states_threshold(key):
        flag = share > context.threshold(key) + 1e-12
    else:
        chance = stats.binom.sf(failures.to_numpy() - 1, count.to_numpy(), context.threshold(key))
        flag = pd.Series(chance < SIGNIFICANCE, index=share.index)
    return result(workers_of(judgments), share, count, flag, failures=failures)


def control_checks(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """Every check of a pass/fail control, one row each: ``worker_id, item_id, control,
    passed``, with H9's and H10's tolerances.

    ``identical``: an identical pair's answer, passed at or above max - 10% of the range;
    ``repeat``: an item the worker answered twice or more, passed when the showings lie within
    a quarter of the range; ``gold``: an answer to a gold item, passed within one step of the
    gold answer. Skipped showings are no checks (as in the heuristics).
    """
    scale = context.scale
    rows = answered(judgments, context)
    columns = ["worker_id", "item_id", "control", "passed"]
    identical = rows[rows["role"] == ItemRole.IDENTICAL.value]
    parts = [
        pd.DataFrame(
            {
                "worker_id": identical["worker_id"],
                "item_id": identical["item_id"],
                "control": "identical",
                "passed": identical["value"]
                >= scale.max - IDENTICAL_TOLERANCE * scale.range - 1e-9,
            }
        )
    ]
    shown = shown_twice(rows)
    if len(shown):
        spread = shown.groupby(["worker_id", "item_id"])["value"].agg(["max", "min"])
        gap = spread["max"] - spread["min"]
        parts.append(
            pd.DataFrame(
                {
                    "worker_id": spread.index.get_level_values("worker_id"),
                    "item_id": spread.index.get_level_values("item_id"),
                    "control": "repeat",
                    "passed": (gap <= REPEAT_TOLERANCE * scale.range + 1e-9).to_numpy(),
                }
            )
        )
    gold = pd.to_numeric(context.item_column(rows, "gold"), errors="coerce")
    golden = rows[gold.notna()]
    parts.append(
        pd.DataFrame(
            {
                "worker_id": golden["worker_id"],
                "item_id": golden["item_id"],
                "control": "gold",
                "passed": (golden["value"] - gold[gold.notna()]).abs() <= scale.step + 1e-9,
            }
        )
    )
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(
            {c: pd.Series(dtype=bool if c == "passed" else object) for c in columns}
        )
    out = pd.concat(parts, ignore_index=True)[columns]
    return out.astype({"passed": bool})
