"""The dashboard's figures from tables: alpha with its interval (all workers and the screened
set; in a study with arms, each arm's), each arm's progress, the workers table, the pace of
the work, and the points of the small plots.

Pure: pandas tables in, numbers and frames out; no database, no Flask.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import HarnessError
from harness.roles import ItemRole
from harness.stats.alpha import Level
from harness.stats.bootstrap import bootstrap_alpha
from harness.stats.reliability import DEFAULT_ALPHA_MIN

DASHBOARD_RESAMPLES = 200
"""Bootstrap resamples of the live interval: about 0.3 s for 100,000 judgments."""


@dataclass(frozen=True)
class Interval:
    """Alpha and its bootstrap interval (None: not defined yet, e.g. no item has two raters)."""

    alpha: float | None
    low: float | None
    high: float | None

    @property
    def shown(self) -> str:
        if self.alpha is None:
            return "not yet"
        if self.low is None or self.high is None:
            return f"{self.alpha:.3f}"
        return f"{self.alpha:.3f} [{self.low:.3f}, {self.high:.3f}]"


NO_ALPHA = Interval(None, None, None)


@dataclass(frozen=True)
class ArmAlpha:
    """One arm's alpha at one moment: for every worker of the arm and for its screened set."""

    arm: str
    judgments: int
    everyone: Interval
    screened: Interval


@dataclass(frozen=True)
class AlphaPoint:
    """Alpha at one moment of the study: for every worker and for the screened set. In a study
    with arms, each arm's instead (``arms``), and none of the arms pooled: the arms are
    different instruments."""

    at: datetime
    judgments: int
    everyone: Interval
    screened: Interval
    arms: tuple[ArmAlpha, ...] = ()


def alpha_interval(
    content: pd.DataFrame, level: Level, *, resamples: int = DASHBOARD_RESAMPLES, seed: int = 0
) -> Interval:
    """Alpha of ``content`` (``item_id, worker_id, value``: answered real items) with its
    units-bootstrap interval; `NO_ALPHA` while it is not defined."""
    if content.empty or content.groupby("item_id")["worker_id"].nunique().max() < 2:
        return NO_ALPHA
    try:
        result = bootstrap_alpha(
            content[["item_id", "worker_id", "value"]], level, resamples=resamples, seed=seed
        )
    except HarnessError:
        return NO_ALPHA
    if not math.isfinite(result.alpha):
        return NO_ALPHA
    low = result.ci_low if math.isfinite(result.ci_low) else None
    high = result.ci_high if math.isfinite(result.ci_high) else None
    return Interval(float(result.alpha), low, high)


def alpha_point(
    content: pd.DataFrame,
    level: Level,
    removed: Iterable[str],
    at: datetime,
    *,
    resamples: int = DASHBOARD_RESAMPLES,
    arms: Sequence[str] = (),
) -> AlphaPoint:
    """Alpha now, of every worker's answers and of the answers of workers not ``removed``; with
    ``arms`` (``content`` has an ``arm`` column), each arm's, and no pooled alpha."""
    gone = set(removed)
    if arms:
        per_arm = []
        for arm in arms:
            part = content[content["arm"] == arm]
            everyone, screened = _alphas(part, gone, level, resamples)
            per_arm.append(ArmAlpha(arm, len(part), everyone, screened))
        return AlphaPoint(at, len(content), NO_ALPHA, NO_ALPHA, tuple(per_arm))
    everyone, screened = _alphas(content, gone, level, resamples)
    return AlphaPoint(at, len(content), everyone, screened)


def _alphas(
    content: pd.DataFrame, gone: set[str], level: Level, resamples: int
) -> tuple[Interval, Interval]:
    kept = content[~content["worker_id"].isin(gone)] if gone else content
    everyone = alpha_interval(content, level, resamples=resamples)
    screened = everyone if not gone else alpha_interval(kept, level, resamples=resamples)
    return everyone, screened


@dataclass(frozen=True)
class ArmProgress:
    """One arm's work so far: its workers and judgments, and its items at the target raters
    per item (every item rated by the raters per item in every arm)."""

    arm: str
    workers: int
    judgments: int
    items: int
    at_target: int
    raters_min: int
    raters_median: float
    raters_max: int


def arm_progress(
    rows: pd.DataFrame, items: Mapping[str, Collection[str]], target: int
) -> list[ArmProgress]:
    """Per arm of ``items`` (arm -> the items of its HITs, in the arms' order): workers and
    judgments among ``rows`` (``arm, item_id, worker_id``), and distinct workers per item,
    0 for an item nobody rated yet (the count `harness status` makes per item and arm)."""
    out = []
    for arm, keys in items.items():
        mine = rows[rows["arm"] == arm] if len(rows) else rows
        raters = (
            mine.groupby("item_id")["worker_id"].nunique() if len(mine) else pd.Series(dtype=int)
        )
        counts = raters.reindex(sorted(set(keys)), fill_value=0).to_numpy()
        out.append(
            ArmProgress(
                arm,
                int(mine["worker_id"].nunique()) if len(mine) else 0,
                len(mine),
                len(counts),
                int((counts >= target).sum()),
                int(counts.min()) if len(counts) else 0,
                float(np.median(counts)) if len(counts) else 0.0,
                int(counts.max()) if len(counts) else 0,
            )
        )
    return out


def pace(
    submitted_at: Sequence[datetime],
    judgments_per_assignment: float,
    remaining: int,
    now: datetime,
    window: timedelta = timedelta(minutes=10),
) -> tuple[float, timedelta | None]:
    """Judgments per minute over the last ``window`` (from assignment submission times) and
    the time to finish ``remaining`` assignments at that pace (None: no pace yet)."""
    recent = [t for t in submitted_at if t >= now - window]
    if not recent:
        return 0.0, None
    span = max((now - min(recent)).total_seconds(), 60.0)
    per_minute = len(recent) * judgments_per_assignment / span * 60
    if remaining <= 0:
        return per_minute, timedelta(0)
    per_assignment = span / len(recent)
    return per_minute, timedelta(seconds=round(remaining * per_assignment))


@dataclass(frozen=True)
class Score:
    """One heuristic's latest score of one worker against its threshold."""

    score: float | None
    threshold: float | None
    flag: bool
    detail: str = ""  # the heuristic's evidence beside the score ("on 12; reference minilm")

    @property
    def shown(self) -> str:
        if self.score is None:
            return "–"
        return f"{self.score:.3g}"


def _detail(row: Mapping[Any, Any]) -> str:
    """A result row's evidence in words: how much it rests on, then each further field."""
    parts = []
    for key, value in row.items():
        if key in ("score", "flag") or value is None or value != value or value == "":
            continue
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        parts.append(
            f"on {shown}" if key == "evidence" else f"{str(key).replace('_', ' ')} {shown}"
        )
    return "; ".join(parts)


def worker_rows(
    rows: pd.DataFrame,
    scores: Mapping[str, pd.DataFrame],
    thresholds: Mapping[str, float],
) -> pd.DataFrame:
    """One row per worker: ``worker_id, judgments, assignments, median_seconds`` and per
    heuristic key a `Score` column; workers ordered by first judgment.

    ``rows``: the study's judgments (``worker_id, assignment_id, seconds``); ``scores``: per
    heuristic key, the latest result frame (``worker_id, score, flag``) indexed by worker.
    """
    columns = ["worker_id", "judgments", "assignments", "median_seconds", *scores]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    grouped = rows.groupby("worker_id", sort=False)
    table = pd.DataFrame(
        {
            "judgments": grouped.size(),
            "assignments": grouped["assignment_id"].nunique(),
            "median_seconds": grouped["seconds"].median(),
        }
    )
    for key, frame in scores.items():
        threshold = thresholds.get(key)
        found = frame.reindex(table.index)
        table[key] = pd.Series(
            [
                Score(
                    None if s is None or not np.isfinite(s) else float(s),
                    threshold,
                    bool(f) if f is not None and f == f else False,
                    _detail(row),
                )
                for s, f, row in zip(
                    found["score"], found["flag"], found.to_dict("records"), strict=True
                )
            ],
            index=table.index,
            dtype=object,
        )
    return table.reset_index(names="worker_id")[columns]


@dataclass(frozen=True)
class ControlResult:
    """How workers did on one kind of control showing: ``error`` is the mean absolute
    distance from what a careful worker answers (identical pair: the scale's top; gold: the
    gold answer; repeat: their own first answer to the item)."""

    role: str
    showings: int
    workers: int
    error: float | None
    expected: str
    arm: str | None = None  # a study with arms: the arm whose workers these are


def control_results(
    rows: pd.DataFrame, gold: Mapping[str, float], top: float, arms: Sequence[str] = ()
) -> list[ControlResult]:
    """Per control role among ``rows`` (``item_id, worker_id, value, role``): showings,
    workers and the mean absolute error against what is expected.

    With ``arms`` (a study with arms; ``rows`` then has ``arm``), per arm in that order and
    role: each arm is its own instrument, so its controls are never pooled with another's.
    """
    if arms:
        parts = {arm: rows[rows["arm"] == arm] if len(rows) else rows for arm in arms}
        return [
            replace(c, arm=a) for a, part in parts.items() for c in control_results(part, gold, top)
        ]
    if rows.empty:
        return []
    answered = rows[np.isfinite(pd.to_numeric(rows["value"], errors="coerce").astype(float))]
    out = []
    for role, part in answered.groupby("role", sort=True):
        if role == ItemRole.ITEM:
            continue
        values = part["value"].astype(float)
        error: float | None = None
        expected = "nothing: counted only"
        if role == ItemRole.IDENTICAL:
            error, expected = float((values - top).abs().mean()), f"the scale's top ({top:g})"
        elif role == ItemRole.GOLD:
            known = part["item_id"].map(gold)
            if known.notna().any():
                error = float((values - known).abs().mean())
            expected = "the gold answer"
        elif role == ItemRole.REPEAT:
            firsts = (  # the first showing has the item's role (a gold item may be repeated)
                answered[answered["role"] != ItemRole.REPEAT]
                .groupby(["worker_id", "item_id"])["value"]
                .first()
            )
            keys = pd.MultiIndex.from_arrays([part["worker_id"], part["item_id"]])
            before = firsts.reindex(keys).to_numpy(dtype=float)
            diffs = np.abs(values.to_numpy() - before)
            if np.isfinite(diffs).any():
                error = float(np.nanmean(diffs))
            expected = "their own first answer"
        out.append(
            ControlResult(str(role), len(part), int(part["worker_id"].nunique()), error, expected)
        )
    return out


def consensus_points(rows: pd.DataFrame, worker: str) -> pd.DataFrame:
    """The worker's answers against the other workers' mean on the same items: ``item_id,
    value, consensus`` (items nobody else answered left out)."""
    mine = rows[rows["worker_id"] == worker].groupby("item_id")["value"].mean()
    others = rows[rows["worker_id"] != worker].groupby("item_id")["value"].mean()
    joined = pd.DataFrame({"value": mine, "consensus": others.reindex(mine.index)}).dropna()
    return joined.reset_index(names="item_id")


@dataclass(frozen=True)
class Plot:
    """A plot's marks in SVG user units: polylines or dots, axis labels, the frame's size;
    ``rules`` are horizontal reference lines (y, label), ``left`` the frame's left edge."""

    width: int
    height: int
    lines: dict[str, str]  # name -> "x,y x,y ..." (an SVG polyline's points)
    bands: dict[str, str]  # name -> an SVG polygon's points (an interval over time)
    dots: list[tuple[float, float]]
    y_labels: list[tuple[float, str]]
    x_labels: list[tuple[float, str]]
    rules: list[tuple[float, str]] = field(default_factory=list)
    left: int = 30


def alpha_plot(
    points: Sequence[AlphaPoint],
    alpha_min: float = DEFAULT_ALPHA_MIN,
    width: int = 760,
    height: int = 280,
) -> Plot:
    """Alpha over judgments, of all workers and of the screened set, each with its interval
    (bands ``everyone`` and ``screened``), and the smallest acceptable alpha (``alpha_min``)
    as a rule; in a study with arms, each arm's alpha (lines ``arm:NAME`` and
    ``arm-screened:NAME``) over the study's judgments, without intervals."""
    usable = [
        p
        for p in points
        if p.everyone.alpha is not None or any(a.everyone.alpha is not None for a in p.arms)
    ]
    values = [
        v
        for p in usable
        for v in (
            p.everyone.alpha,
            p.everyone.low,
            p.everyone.high,
            p.screened.alpha,
            p.screened.low,
            p.screened.high,
            *(x for a in p.arms for x in (a.everyone.alpha, a.screened.alpha)),
        )
        if v is not None
    ]
    low, high = min(values + [0.0, alpha_min]), max(values + [1.0])
    x_max = max((p.judgments for p in usable), default=1) or 1
    left, bottom = 48, 25

    def x(n: int) -> float:
        return round(left + (width - left - 5) * n / x_max, 1)

    def y(v: float) -> float:
        return round(5 + (height - bottom) * (high - v) / (high - low or 1.0), 1)

    def line(values: Sequence[tuple[int, float | None]]) -> str:
        return " ".join(f"{x(n)},{y(v)}" for n, v in values if v is not None)

    def band(interval: Callable[[AlphaPoint], Interval]) -> str:
        top = [(p.judgments, interval(p).high) for p in usable if interval(p).high is not None]
        under = [(p.judgments, interval(p).low) for p in usable if interval(p).low is not None]
        return (line(top) + " " + line(list(reversed(under)))).strip() if top else ""

    lines = {
        "everyone": line([(p.judgments, p.everyone.alpha) for p in usable]),
        "screened": line([(p.judgments, p.screened.alpha) for p in usable]),
    }
    names = list(dict.fromkeys(a.arm for p in usable for a in p.arms))
    for name in names:
        mine = [(p.judgments, a) for p in usable for a in p.arms if a.arm == name]
        lines[f"arm:{name}"] = line([(n, a.everyone.alpha) for n, a in mine])
        lines[f"arm-screened:{name}"] = line([(n, a.screened.alpha) for n, a in mine])
    ticks = [low, (low + high) / 2, high]
    return Plot(
        width,
        height,
        lines=lines,
        bands={"everyone": band(lambda p: p.everyone), "screened": band(lambda p: p.screened)},
        dots=[],
        y_labels=[(y(t), f"{t:.2f}") for t in ticks],
        x_labels=[(x(0), "0"), (x(x_max), f"{x_max:,} judgments")],
        rules=[(y(alpha_min), f"alpha_min {alpha_min:.3f}")],
        left=left,
    )


def scatter_plot(points: pd.DataFrame, lo: float, hi: float, size: int = 320) -> Plot:
    """The worker's answers (y) against the consensus (x) on the scale ``lo``..``hi``."""
    pad = 30
    span = (hi - lo) or 1.0

    def at(v: float, flip: bool) -> float:
        share = (v - lo) / span
        return (
            round(pad + (size - pad - 5) * share, 1)
            if not flip
            else round(5 + (size - pad - 5) * (1 - share), 1)
        )

    dots = [
        (at(c, False), at(v, True))
        for v, c in zip(points["value"], points["consensus"], strict=True)
    ]
    diagonal = f"{at(lo, False)},{at(lo, True)} {at(hi, False)},{at(hi, True)}"
    return Plot(
        size,
        size,
        lines={"diagonal": diagonal},
        bands={},
        dots=dots,
        y_labels=[(at(lo, True), f"{lo:g}"), (at(hi, True), f"{hi:g}")],
        x_labels=[(at(lo, False), f"{lo:g}"), (at(hi, False), f"{hi:g}")],
    )
