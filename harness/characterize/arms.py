"""Compare the arms of a study (issue #18): which variant of an instrument measures better.

Pure functions over the long table with an ``arm`` column (``item_id, worker_id, arm, value[,
skipped, seconds]``); definitions in docs/arms.md. In short, for each arm, on the items every
arm rated (each with at least two values in every arm), after dropping the workers screening
excluded:

- **alpha** (Krippendorff, at the study type's level) with a percentile interval from a
  bootstrap of the items (`harness.characterize.arm_bootstrap`);
- **difference of alphas** of each arm against the first arm (the base), with an interval and
  a p-value from the **relabeling test** (`harness.characterize.arm_relabel`): the workers of
  the two arms are split between them again at random, many times, and the observed difference
  is compared with the differences those splits give. Workers were randomized between arms, so
  this uses the design itself, and is calibrated where the bootstraps are not (docs/arms.md).
  The bootstraps stay as named methods (`DifferenceMethod`): ``items`` (items resampled
  jointly, so the items' shared difficulty cancels; too narrow when workers have biases) and
  ``items-workers`` (items jointly, workers reweighted; too wide);
- **item sd**: the mean over items of the standard deviation of an item's values (precision of a
  single judgment; smaller is more precise);
- **time per item**: the median seconds of a judgment;
- **screened out**: the share of the arm's workers that screening excluded;
- **agreement of item means** between each arm and the base: Spearman's rho with a Fisher-z
  interval, standard error sqrt(1.06 / (n - 3)) (Fieller, Hartley & Pearson 1957, Biometrika
  44, 470-481);
- against a named **reference** (e.g. WS353's published means): each arm's Spearman rho with it
  (same interval), the best arm, and Williams' t of the best against each other arm (the two
  correlations share the reference; `harness.stats.dependent.williams_t`);
- **cost of a reliable item mean**: with the money per judgment, the cost of the judgments one
  item needs for its mean to reach reliability 0.8, by Spearman-Brown with the arm's alpha as
  one judgment's reliability: k = 0.8 (1 - alpha) / (alpha 0.2) judgments;
- the **verdict**: an arm is more (less) reliable than the base when the difference's interval
  lies above (below) 0, otherwise "not distinguishable with this many raters";
- **controls passed** (given the control checks): each arm's share of pass/fail control checks
  passed, by every worker of the arm, with Wilson's interval, and its difference from the
  base with Newcombe's (`harness.characterize.arm_controls`);
- **raters per item needed** to tell the two apart at the observed difference d, with power
  1 - beta at the interval's level: normal approximation, the standard error of the difference
  (the one its interval implies: width / (2 z_{1-a/2})) assumed to shrink as
  1 / sqrt(raters per item) with the items fixed, so
  r_needed = ceil(r * (se * (z_{1-a/2} + z_{1-beta}) / |d|)^2).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import pandas as pd
from scipy import stats

from harness.characterize.arm_alpha import ArmValues
from harness.characterize.arm_bootstrap import two_way_bootstrap
from harness.characterize.arm_controls import ArmControls, controls_passed
from harness.characterize.arm_relabel import relabeling_test
from harness.errors import JudgmentsError, StatsError
from harness.stats._table import carries_value
from harness.stats.alpha import Level, alpha_parts
from harness.stats.dependent import williams_t
from harness.stats.pairable import Pairable, pairable_from_codes

SPEARMAN_SE = 1.06  # Fieller, Hartley & Pearson (1957): var(atanh rho_s) ~ 1.06 / (n - 3)
MAX_RATERS = 10_000
RELIABLE_MEAN = 0.8  # the reliability of an item mean the cost figure is for


class DifferenceMethod(StrEnum):
    """How the interval of a difference of alphas is made (module docstring)."""

    RELABEL = "relabel"  # the relabeling test of workers (the default: calibrated)
    ITEMS = "items"  # bootstrap of items jointly (too narrow when workers have biases)
    ITEMS_WORKERS = "items-workers"  # items jointly, workers reweighted (too wide)


@dataclass(frozen=True)
class ArmSummary:
    """One arm's figures (see the module docstring)."""

    arm: str
    workers: int
    judgments: int
    items: int  # items compared (rated with two or more values in every arm)
    raters_per_item: float  # mean values per compared item
    alpha: float
    ci_low: float
    ci_high: float
    item_sd: float
    seconds_per_item: float | None
    screened_share: float | None
    cost_reliable: float | None = None  # cost of an item mean with reliability RELIABLE_MEAN


@dataclass(frozen=True)
class ArmDifference:
    """An arm against the base: the difference of alphas, its verdict and the power figure."""

    arm: str
    base: str
    difference: float  # alpha(arm) - alpha(base)
    ci_low: float
    ci_high: float
    se: float  # relabel: the interval's width / (2 z); bootstraps: sd of the resampled differences
    raters_needed: int | None  # None: no difference observed, or more than MAX_RATERS
    rho: float  # Spearman rho of the two arms' item means
    rho_low: float
    rho_high: float
    method: DifferenceMethod = DifferenceMethod.RELABEL
    p_value: float | None = None  # the relabeling test's (None for the bootstraps)
    too_few_workers: bool = False  # too few splits of the workers for a test at the level

    @property
    def distinguishable(self) -> bool:
        return self.ci_low > 0 or self.ci_high < 0

    @property
    def verdict(self) -> str:
        """The plain sentence: which is more reliable, or that they cannot be told apart."""
        figures = f"difference {self.difference:.2f} [{self.ci_low:.2f}, {self.ci_high:.2f}]"
        if self.ci_low > 0:
            return f"arm {self.arm} is more reliable than {self.base}: {figures}"
        if self.ci_high < 0:
            return f"arm {self.arm} is less reliable than {self.base}: {figures}"
        few = (
            "; too few workers to tell arms apart by relabeling them at this level"
            if self.too_few_workers
            else ""
        )
        return (
            f"arms {self.arm} and {self.base} are not distinguishable with this many raters: "
            f"{figures}{few}"
        )


@dataclass(frozen=True)
class ReferenceFit:
    """How well one arm's item means reproduce a reference (e.g. the published WS353 means)."""

    arm: str
    rho: float
    rho_low: float
    rho_high: float
    p_vs_best: float | None  # Williams' t of the best arm against this one (None: the best)


@dataclass(frozen=True)
class ArmComparison:
    """Every arm's figures, each arm against the base, and the reference fits (if asked)."""

    level: Level
    confidence: float
    resamples: int
    seed: int
    power: float
    arms: list[ArmSummary]
    differences: list[ArmDifference]
    reference: list[ReferenceFit]
    samples: np.ndarray  # resamples x arms: each arm's alpha on each joint item draw
    difference_method: DifferenceMethod = DifferenceMethod.RELABEL
    relabelings: int = 0  # relabelings per difference (relabel only)
    controls: list[ArmControls] = field(default_factory=list)  # empty: no checks given

    @property
    def best_reference(self) -> str | None:
        """The arm whose item means agree best with the reference."""
        if not self.reference:
            return None
        return max(self.reference, key=lambda r: r.rho).arm


def compare_arms(
    judgments: pd.DataFrame,
    *,
    level: Level = "interval",
    arms: list[str] | None = None,
    screened: Collection[str] | None = None,
    reference: Mapping[str, float] | None = None,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
    power: float = 0.8,
    difference: DifferenceMethod | str = DifferenceMethod.RELABEL,
    relabelings: int = 1000,
    cost_per_judgment: Mapping[str, float] | None = None,
    controls: pd.DataFrame | None = None,
) -> ArmComparison:
    """Compare the arms of ``judgments`` (see the module docstring). ``arms`` gives their order
    (the first is the base; default: order of first appearance); ``screened`` the worker ids
    screening excluded; ``reference`` item id -> a published value; ``difference`` how the
    difference of alphas gets its interval (`DifferenceMethod`), ``relabelings`` how many
    splits the relabeling test draws; ``cost_per_judgment`` (arm -> money per judgment) adds
    each arm's cost of a reliable item mean; ``controls``
    (one row per control check: ``arm, worker_id, passed[, control]``) the controls passed."""
    method = DifferenceMethod(difference)
    table = _checked(judgments)
    names = list(arms) if arms is not None else list(pd.unique(table["arm"]))
    if len(names) < 2:
        raise StatsError(f"comparing arms needs two or more arms; the judgments have {names}")
    missing = [a for a in names if not (table["arm"] == a).any()]
    if missing:
        raise StatsError(f"no judgments in arm(s) {', '.join(missing)}")
    excluded = set(map(str, screened or ()))
    workers = {a: set(table.loc[table["arm"] == a, "worker_id"]) for a in names}
    kept = table[~table["worker_id"].isin(excluded)]
    valued = kept[carries_value(kept)]
    common = _common_items(valued, names)
    valued = valued[valued["item_id"].isin(common)]
    codes = {item: i for i, item in enumerate(common)}
    label_codes = None
    if level == "nominal":
        label_codes = {v: i for i, v in enumerate(sorted(pd.unique(valued["value"]), key=str))}
    pairables = [_pairable(valued[valued["arm"] == a], codes, label_codes) for a in names]
    point = np.array([alpha_parts(p, level).alpha for p in pairables])
    values = [
        ArmValues.build(
            rows["item_id"].map(codes).to_numpy(),
            rows["worker_id"].to_numpy(),
            rows["value"].to_numpy(),
            len(common),
            level,
        )
        for rows in (valued[valued["arm"] == a] for a in names)
    ]
    samples = two_way_bootstrap(
        values,
        resamples,
        np.random.default_rng(seed),
        reweight_workers=method == DifferenceMethod.ITEMS_WORKERS,
    )
    tail = (1 - confidence) / 2 * 100
    means = valued.groupby(["arm", "item_id"])["value"].mean().unstack("arm")[names]
    summaries = []
    for j, name in enumerate(names):
        rows = valued[valued["arm"] == name]
        low, high = _percentiles(samples[:, j], tail)
        sds = rows.groupby("item_id")["value"].std(ddof=1)
        seconds = None
        if "seconds" in rows.columns and rows["seconds"].notna().any():
            seconds = float(rows["seconds"].median())
        arm_workers = workers[name]
        summaries.append(
            ArmSummary(
                arm=name,
                workers=len(arm_workers - excluded),
                judgments=len(rows),
                items=len(common),
                raters_per_item=float(len(rows) / len(common)),
                alpha=float(point[j]),
                ci_low=low,
                ci_high=high,
                item_sd=float(sds.mean()),
                seconds_per_item=seconds,
                cost_reliable=None
                if cost_per_judgment is None or name not in cost_per_judgment
                else cost_of_reliable_mean(float(point[j]), cost_per_judgment[name]),
                screened_share=None
                if screened is None
                else len(arm_workers & excluded) / len(arm_workers),
            )
        )
    differences = []
    for j, name in enumerate(names[1:], start=1):
        d = float(point[j] - point[0])
        p_value, few = None, False
        if method == DifferenceMethod.RELABEL:
            pair = valued[valued["arm"].isin([names[0], name])]
            test = relabeling_test(
                pair["item_id"].map(codes).to_numpy(),
                pair["worker_id"].to_numpy(),
                pair["value"].to_numpy(),
                (pair["arm"] == name).to_numpy(),
                len(common),
                level,
                relabelings,
                confidence,
                np.random.default_rng([seed, j]),
            )
            low, high, se, p_value = test.ci_low, test.ci_high, test.se, test.p
            few = test.too_few_splits
        else:
            diff = samples[:, j] - samples[:, 0]
            diff = diff[np.isfinite(diff)]
            low, high = _percentiles(diff, tail)
            se = float(diff.std(ddof=1)) if len(diff) > 1 else math.nan
        r = (summaries[0].raters_per_item + summaries[j].raters_per_item) / 2
        rho, rho_low, rho_high = spearman_interval(
            means[names[0]].to_numpy(), means[name].to_numpy(), confidence
        )
        differences.append(
            ArmDifference(
                name,
                names[0],
                d,
                low,
                high,
                se,
                raters_needed(d, se, r, confidence, power),
                rho,
                rho_low,
                rho_high,
                method,
                p_value,
                few,
            )
        )
    fits = _reference_fits(means, names, reference, confidence) if reference else []
    checked = [] if controls is None else controls_passed(controls, names, confidence)
    return ArmComparison(
        level,
        confidence,
        resamples,
        seed,
        power,
        summaries,
        differences,
        fits,
        samples,
        method,
        relabelings if method == DifferenceMethod.RELABEL else 0,
        checked,
    )


def spearman_interval(
    x: np.ndarray, y: np.ndarray, confidence: float
) -> tuple[float, float, float]:
    """Spearman's rho of paired values with its Fisher-z interval (module docstring)."""
    n = len(x)
    if n < 4:
        raise StatsError(f"a correlation interval needs at least 4 items, got {n}")
    rho = float(stats.spearmanr(x, y).statistic)
    if abs(rho) >= 1:
        return rho, rho, rho
    z = math.atanh(rho)
    half = stats.norm.ppf(1 - (1 - confidence) / 2) * math.sqrt(SPEARMAN_SE / (n - 3))
    return rho, math.tanh(z - half), math.tanh(z + half)


def cost_of_reliable_mean(alpha: float, cost_per_judgment: float) -> float | None:
    """The cost of enough judgments of one item for its mean to reach reliability
    `RELIABLE_MEAN`: Spearman-Brown with the arm's alpha as one judgment's reliability,
    k = R (1 - alpha) / (alpha (1 - R)) judgments; None when alpha <= 0."""
    if not alpha > 0:
        return None
    k = RELIABLE_MEAN * (1 - alpha) / (alpha * (1 - RELIABLE_MEAN))
    return k * cost_per_judgment


def raters_needed(
    difference: float, se: float, raters: float, confidence: float, power: float
) -> int | None:
    """Raters per item (per arm) at which a difference of alphas of ``difference`` would be
    told apart with probability ``power``, given its standard error ``se`` at ``raters``
    (module docstring); None when no difference was observed or the answer exceeds
    `MAX_RATERS`."""
    if difference == 0 or not math.isfinite(se) or se <= 0:
        return None
    z = stats.norm.ppf(1 - (1 - confidence) / 2) + stats.norm.ppf(power)
    needed = math.ceil(raters * (se * z / abs(difference)) ** 2)
    return needed if needed <= MAX_RATERS else None


def _checked(judgments: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("item_id", "worker_id", "arm", "value") if c not in judgments.columns]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; comparing arms needs item_id, worker_id, "
            "arm, value"
        )
    table = judgments.copy()
    for column in ("item_id", "worker_id", "arm"):
        table[column] = table[column].astype(str)
    return table


def _common_items(valued: pd.DataFrame, names: list[str]) -> list[str]:
    """Items with at least two values in every arm, sorted."""
    counts = valued.groupby(["item_id", "arm"]).size().unstack("arm").reindex(columns=names)
    common = sorted(counts.index[(counts.fillna(0) >= 2).all(axis=1)])
    if len(common) < 4:
        raise StatsError(
            f"only {len(common)} item(s) have two or more values in every arm; comparing arms "
            "needs at least 4"
        )
    return common


def _pairable(
    rows: pd.DataFrame, codes: dict[str, int], labels: dict[object, int] | None
) -> Pairable:
    items = rows["item_id"].map(codes).to_numpy(dtype=np.int64)
    if labels is not None:
        values = rows["value"].map(labels).to_numpy(dtype=np.int64)
    else:
        values = rows["value"].to_numpy(dtype=np.float64)
    return pairable_from_codes(items, values)


def _percentiles(values: np.ndarray, tail: float) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return math.nan, math.nan
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def _reference_fits(
    means: pd.DataFrame, names: list[str], reference: Mapping[str, float], confidence: float
) -> list[ReferenceFit]:
    ref = pd.Series({str(k): float(v) for k, v in reference.items()})
    shared = means.index.intersection(ref.index)
    if len(shared) < 4:
        raise StatsError(
            f"only {len(shared)} compared item(s) have a reference value; need at least 4"
        )
    m = means.loc[shared]
    r = ref.loc[shared].to_numpy()
    fits = {a: spearman_interval(m[a].to_numpy(), r, confidence) for a in names}
    best = max(names, key=lambda a: fits[a][0])
    out = []
    for a in names:
        p = None
        if a != best:
            between = float(stats.spearmanr(m[best], m[a]).statistic)
            p = williams_t(fits[best][0], fits[a][0], between, len(shared)).p
        out.append(ReferenceFit(a, *fits[a], p))
    return out
