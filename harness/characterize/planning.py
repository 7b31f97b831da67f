"""Plan a study from a pilot: how many raters per item reach a target precision.

A pilot (a stored study, a long judgments CSV, or WS353 itself) says how much raters disagree
on each item and how reliable one judgment is. From that, for each target (docs/methods.md,
"Planning a study"):

- **item means**: an item's mean over r raters has standard error s_i / sqrt(r), with s_i the
  pilot's sample sd of item i; raters per item so that the items' ``coverage`` quantile of
  s_i (1.0: every item, the worst one) reaches the target;
- **resolution**: two items whose means differ by t are told apart (their difference's 95%
  interval excludes 0) when z sqrt((s_i^2 + s_j^2) / r) <= t; for a typical pair (the pilot's
  mean item variance s^2) r = z^2 2 s^2 / t^2;
- **alpha's interval**: on interval data alpha is close to the one-way intraclass correlation
  rho of one judgment, whose large-sample variance with n items and r raters each is
  2 (1 - rho)^2 (1 + (r - 1) rho)^2 / (r (r - 1) (n - 1)) (Fisher 1925; Donner 1986,
  International Statistical Review 54, 67-82); the interval's width is 2 z times its square
  root. More raters cannot narrow it below 2 z sqrt(2 rho^2 (1 - rho)^2 / (n - 1)): then only
  more items can, and the plan says how many;
- **telling two systems apart**: the power of harness's comparison of two Spearman rhos
  (`harness.stats.spearman_difference.difference_power`) at the systems' rhos with the item
  means. Fewer raters make item means noisier and both rhos smaller: a system's rho with the
  means of r raters is its rho with the pilot's means times sqrt(R(r) / R(pilot's raters)),
  R(r) = r alpha / (1 + (r - 1) alpha) the reliability of a mean (Spearman-Brown).

Pure functions over the long table; the command reads the pilot and prices the plan.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.errors import InputError
from harness.stats.alpha import krippendorff_alpha
from harness.stats.spearman_difference import difference_power

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: two-sided 95% intervals."""
MAX_RATERS = 1000
"""Beyond this many raters per item a target counts as out of reach."""
MAX_ITEMS = 1_000_000
"""Beyond this many items likewise."""


@dataclass(frozen=True)
class Pilot:
    """What a plan needs of a pilot: each item's sample sd of its values, the alpha of one
    judgment, and the median seconds a judgment took (None: not timed)."""

    name: str
    item_sds: np.ndarray
    alpha: float
    raters_per_item: float
    seconds_per_judgment: float | None

    @property
    def mean_variance(self) -> float:
        return float(np.mean(self.item_sds**2))


def read_pilot(judgments: pd.DataFrame, name: str) -> Pilot:
    """A `Pilot` from a long table (``item_id, worker_id, value[, skipped, seconds]``): the
    items with at least two values count. `InputError` when fewer than 3 such items."""
    table = judgments
    if "skipped" in table.columns:
        table = table[~table["skipped"].astype(bool)]
    table = table.dropna(subset=["value"])
    counts = table.groupby("item_id")["value"].count()
    usable = counts[counts >= 2].index
    if len(usable) < 3:
        raise InputError(
            f"pilot {name}: {len(usable)} items have two or more values; a plan needs at least 3"
        )
    table = table[table["item_id"].isin(usable)]
    sds = table.groupby("item_id")["value"].std(ddof=1).to_numpy(dtype=float)
    seconds = None
    if "seconds" in table.columns and table["seconds"].notna().any():
        seconds = float(table["seconds"].dropna().median())
    return Pilot(
        name=name,
        item_sds=sds,
        alpha=krippendorff_alpha(table, "interval"),
        raters_per_item=float(counts[usable].mean()),
        seconds_per_judgment=seconds,
    )


@dataclass(frozen=True)
class Targets:
    """What the study must reach; None: not asked."""

    item_se: float | None = None
    resolution: float | None = None
    alpha_width: float | None = None
    coverage: float = 1.0  # the share of items that must reach ``item_se``
    systems: Systems | None = None


@dataclass(frozen=True)
class Systems:
    """Two systems to tell apart: their rhos with the pilot's item means, the correlation of
    their scores, and the power wanted at p < ``p0``."""

    names: tuple[str, str]
    rho_a: float
    rho_b: float
    r_ab: float
    power: float = 0.8
    p0: float = 0.05


@dataclass(frozen=True)
class Need:
    """One target's requirement: raters per item (None: out of reach with the spec's items),
    and what the target gives at the spec's own raters per item."""

    target: str
    goal: float
    raters: int | None
    at_spec: float
    note: str = ""
    at_least: bool = False  # the figure must reach the goal from below (power), not above


def item_se(pilot: Pilot, raters: int, coverage: float = 1.0) -> float:
    """The standard error of an item mean with ``raters`` raters, at the items' ``coverage``
    quantile of sd (1.0: the worst item)."""
    return float(np.quantile(pilot.item_sds, coverage)) / math.sqrt(raters)


def resolution_at(pilot: Pilot, raters: int) -> float:
    """The smallest difference of two typical items' means that ``raters`` raters per item
    tell apart at 95%."""
    return Z95 * math.sqrt(2 * pilot.mean_variance / raters)


def alpha_width(rho: float, raters: int, items: int) -> float:
    """The width of alpha's 95% interval with ``items`` items of ``raters`` raters each, for
    a judgment of reliability ``rho`` (Fisher's large-sample variance; inf below 2 raters or
    items)."""
    if raters < 2 or items < 2:
        return math.inf
    rho = min(max(rho, 0.0), 1.0)
    variance = (
        2 * (1 - rho) ** 2 * (1 + (raters - 1) * rho) ** 2 / (raters * (raters - 1) * (items - 1))
    )
    return 2 * Z95 * math.sqrt(variance)


def items_for_alpha_width(rho: float, raters: int, width: float) -> int:
    """How many items ``raters`` raters each need for alpha's interval to be ``width`` wide."""
    rho = min(max(rho, 0.0), 1.0)
    se = width / (2 * Z95)
    return math.ceil(
        1 + 2 * (1 - rho) ** 2 * (1 + (raters - 1) * rho) ** 2 / (raters * (raters - 1) * se**2)
    )


def mean_reliability(alpha: float, raters: float) -> float:
    """The reliability of an item mean over ``raters`` raters whose single judgments have
    reliability ``alpha`` (Spearman-Brown)."""
    alpha = min(max(alpha, 1e-9), 1.0)
    return raters * alpha / (1 + (raters - 1) * alpha)


def systems_power(pilot: Pilot, systems: Systems, raters: int, items: int) -> float:
    """The power to tell ``systems`` apart on ``items`` items with ``raters`` raters each."""
    shrink = math.sqrt(
        mean_reliability(pilot.alpha, raters) / mean_reliability(pilot.alpha, pilot.raters_per_item)
    )
    return difference_power(
        items, systems.rho_a * shrink, systems.rho_b * shrink, systems.r_ab, systems.p0
    )


def _fewest_items(reaches: Callable[[int], bool]) -> int | None:
    """The fewest items (4 .. `MAX_ITEMS`) for which ``reaches(n)``, ``reaches`` growing with
    n (a bisection)."""
    low, high = 4, MAX_ITEMS
    if not reaches(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _fewest(reaches: Callable[[int], bool], start: int = 1) -> int | None:
    """The smallest raters per item (``start`` .. `MAX_RATERS`) for which ``reaches(r)``."""
    for r in range(start, MAX_RATERS + 1):
        if reaches(r):
            return r
    return None


def needs(pilot: Pilot, targets: Targets, items: int, spec_raters: int) -> list[Need]:
    """Each asked target's raters per item, for a study of ``items`` items."""
    out = []
    if targets.item_se is not None:
        goal, cover = targets.item_se, targets.coverage
        sd = float(np.quantile(pilot.item_sds, cover))
        out.append(
            Need(
                f"item mean se ({cover:.0%} of items)",
                goal,
                max(1, math.ceil((sd / goal) ** 2 - 1e-9)),
                item_se(pilot, spec_raters, cover),
            )
        )
    if targets.resolution is not None:
        goal = targets.resolution
        r = math.ceil(Z95**2 * 2 * pilot.mean_variance / goal**2 - 1e-9)
        out.append(Need("resolution", goal, max(1, r), resolution_at(pilot, spec_raters)))
    if targets.alpha_width is not None:
        goal = targets.alpha_width
        raters = _fewest(lambda r: alpha_width(pilot.alpha, r, items) <= goal, start=2)
        note = ""
        if raters is None:
            more = items_for_alpha_width(pilot.alpha, spec_raters, goal)
            note = (
                f"more raters cannot get there with {items} items; "
                f"{more} items at {spec_raters} raters each would"
            )
        out.append(
            Need(
                "alpha interval width",
                goal,
                raters,
                alpha_width(pilot.alpha, spec_raters, items),
                note,
            )
        )
    if targets.systems is not None:
        pair = targets.systems
        goal = pair.power
        now = systems_power(pilot, pair, spec_raters, items)
        raters = None
        if math.isnan(now):
            note = (
                f"no two systems have these rhos with r_AB {pair.r_ab:.3f} between them: "
                "ask for a smaller difference"
            )
        else:
            raters = _fewest(lambda r: systems_power(pilot, pair, r, items) >= goal, start=2)
            note = ""
        if raters is None and not note:
            enough = _fewest_items(lambda n: systems_power(pilot, pair, spec_raters, n) >= goal)
            note = (
                f"more raters cannot get there with {items} items (at most "
                f"{systems_power(pilot, pair, MAX_RATERS, items):.2f}); "
                + (
                    f"{enough} items at {spec_raters} raters each would"
                    if enough is not None
                    else f"nor can {MAX_ITEMS} items"
                )
            )
        out.append(
            Need(
                f"power to tell {pair.names[0]} from {pair.names[1]} "
                f"(rho {pair.rho_a:.3f} vs {pair.rho_b:.3f})",
                goal,
                raters,
                now,
                note,
                at_least=True,
            )
        )
    return out


def curves(pilot: Pilot, items: int, coverage: float, up_to: int) -> pd.DataFrame:
    """Each target's figure at 2 .. ``up_to`` raters per item (for the plan's plot)."""
    rows = [
        {
            "raters": r,
            "item_se": item_se(pilot, r, coverage),
            "resolution": resolution_at(pilot, r),
            "alpha_width": alpha_width(pilot.alpha, r, items),
        }
        for r in range(2, max(up_to, 3) + 1)
    ]
    return pd.DataFrame(rows)
