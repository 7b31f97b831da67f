"""All of a characterization at once: every property of the new and the original instrument.

`characterize` computes, from two `Instrument`s (and optionally a resolution study, system
predictions and a screened version of the new judgments), every figure of METHODS.md section 6
in one `Characterization`, whose `to_dict` is the report's JSON with stable keys. Screening:
when a screened table is given, every figure of the new instrument is computed for it too and
kept beside the figures for all judgments (the report never shows the screened alpha alone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from harness.characterize.arm_figures import ArmsFigures
from harness.characterize.card import ProcedureCard, procedure_card
from harness.characterize.instrument import Instrument
from harness.characterize.precision import Precision, precision
from harness.characterize.rank_stability import (
    RankStability,
    rank_stability_resolution,
    rank_stability_se,
)
from harness.characterize.repeatability import Repeatability, repeatability
from harness.characterize.reproducibility import MIN_SHARED_ITEMS, Reproducibility, reproducibility
from harness.characterize.resolution import Resolution, resolution
from harness.characterize.systems import Systems, check_system_items, mrds_records, systems
from harness.errors import InputError
from harness.screening.report import json_value
from harness.stats._table import valued
from harness.stats.alpha import Level
from harness.stats.spearman_difference import spearman_mrds_table

Progress = Callable[[str], None]


@dataclass(frozen=True)
class InstrumentFigures:
    """The properties of one instrument on its own."""

    card: ProcedureCard
    repeatability: Repeatability
    precision: Precision
    rank_stability: RankStability
    rank_stability_resolution: RankStability | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card.to_dict(),
            "repeatability": self.repeatability.to_dict(),
            "precision": self.precision.to_dict(),
            "rank_stability": self.rank_stability.to_dict(),
            "rank_stability_resolution": None
            if self.rank_stability_resolution is None
            else self.rank_stability_resolution.to_dict(),
        }


@dataclass(frozen=True)
class Screened:
    """The new instrument's figures after screening, to show beside those for all judgments."""

    policy: str
    workers_removed: list[str]
    new: InstrumentFigures
    reproducibility: Reproducibility
    systems: Systems | None
    impact: pd.DataFrame | None = None  # harness.screening.impact: one row per heuristic subset

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "workers_removed": self.workers_removed,
            "new": self.new.to_dict(),
            "reproducibility": self.reproducibility.to_dict(),
            "systems": None if self.systems is None else self.systems.to_dict(),
            "impact": None if self.impact is None else impact_records(self.impact),
        }


def impact_records(impact: pd.DataFrame) -> list[dict[str, Any]]:
    """The screening impact table as JSON records (subsets as lists of heuristic keys)."""
    table = impact.copy()
    table["subset"] = [list(subset) for subset in table["subset"]]
    records = table.to_dict(orient="records")
    return [{str(k): json_value(v) for k, v in record.items()} for record in records]


@dataclass(frozen=True)
class Characterization:
    new_instrument: Instrument
    original_instrument: Instrument
    new: InstrumentFigures
    original: InstrumentFigures
    reproducibility: Reproducibility
    resolution: Resolution | None
    systems: Systems | None
    mrds: pd.DataFrame
    screened: Screened | None
    settings: dict[str, Any]
    arms: ArmsFigures | None = None  # the new instrument is one arm of a study with arms

    @property
    def self_comparison(self) -> bool:
        """Whether the new instrument is the original itself (a resolution study of the
        original characterized on its own): then there is no reproduction to judge."""
        new, original = self.new_instrument, self.original_instrument
        return new.name == original.name and new.judgments.equals(original.judgments)

    def to_dict(self) -> dict[str, Any]:
        """Every figure, with the stable keys listed in docs/characterize.md."""
        return {
            "new": self.new.to_dict(),
            "original": self.original.to_dict(),
            "reproducibility": self.reproducibility.to_dict(),
            "resolution": None if self.resolution is None else self.resolution.to_dict(),
            "systems": None if self.systems is None else self.systems.to_dict(),
            "mrds": mrds_records(self.mrds, self.reproducibility.overlap.n_shared),
            "screened": None if self.screened is None else self.screened.to_dict(),
            "settings": self.settings,
            "arms": None if self.arms is None else self.arms.to_dict(),
        }


def instrument_figures(
    instrument: Instrument,
    *,
    level: Level,
    resamples: int,
    seed: int,
    threshold: float | None,
) -> InstrumentFigures:
    """Card, repeatability, precision and rank stability of one instrument."""
    p = precision(instrument.judgments)
    return InstrumentFigures(
        card=procedure_card(instrument),
        repeatability=repeatability(
            instrument.judgments,
            level,
            resamples=resamples,
            seed=seed,
            alpha_min=instrument.alpha_min,
        ),
        precision=p,
        rank_stability=rank_stability_se(p.summaries),
        rank_stability_resolution=None
        if threshold is None
        else rank_stability_resolution(p.summaries, threshold),
    )


def characterize(
    new: Instrument,
    original: Instrument,
    *,
    resolution_study: Instrument | None = None,
    system_scores: Mapping[str, pd.Series] | None = None,
    system_sources: Mapping[str, str] | None = None,
    screened: pd.DataFrame | None = None,
    flagged_workers: Iterable[str] | None = None,
    screening_policy: str = "screened",
    screening_impact: pd.DataFrame | None = None,
    level: Level = "interval",
    resamples: int = 1000,
    seed: int = 0,
    min_shared_items: int = MIN_SHARED_ITEMS,
    progress: Progress | None = None,
) -> Characterization:
    """Every figure of the new instrument against the original (see the module docstring).

    The screened set is ``screened`` (a long table), or the new judgments without
    ``flagged_workers``; give at most one of them. ``screening_impact`` (the table of
    `harness.screening.impact.screening_impact`) is reported with the screened set.
    """
    say = progress or (lambda _message: None)
    if flagged_workers is not None:
        if screened is not None:
            raise InputError("give a screened table or flagged workers, not both")
        flagged = set(flagged_workers)
        screened = new.judgments[~new.judgments["worker_id"].isin(flagged)].reset_index(drop=True)
    scale_range = _scale_range(original)
    say("reproducibility: comparing item means and sds on shared items")
    repro = _reproduction(
        new, original, level=level, resamples=resamples, seed=seed, minimum=min_shared_items
    )
    res = None
    if resolution_study is not None:
        say("resolution: decisions and agreement by threshold")
        means = valued(original.judgments).astype({"value": float}).groupby("item_id")["value"]
        res = resolution(
            resolution_study.judgments,
            means.mean(),
            scale_range=scale_range,
            source=resolution_study.name,
            resamples=resamples,
            seed=seed,
        )
    threshold = None if res is None else res.threshold_95
    figures = {}
    for label, instrument in (("new", new), ("original", original)):
        say(
            f"{label} ({instrument.name}): repeatability ({resamples} bootstrap resamples), "
            "precision, rank stability"
        )
        figures[label] = instrument_figures(
            instrument, level=level, resamples=resamples, seed=seed, threshold=threshold
        )
    tables = {"new": new.judgments, "original": original.judgments}
    sys = None
    if system_scores:
        say(f"systems: {len(system_scores)} system(s) on both instruments")
        _check_systems(system_scores, system_sources or {}, {"new": new, "original": original})
        sys = systems(tables, system_scores, scale_range=scale_range, resolution=threshold)
    screened_view = None
    if screened is not None:
        say(f"screened ({screening_policy}): every figure of the new instrument again")
        screened_view = _screened(
            new,
            original,
            screened,
            screening_policy,
            system_scores,
            level=level,
            resamples=resamples,
            seed=seed,
            threshold=threshold,
            scale_range=scale_range,
            minimum=min_shared_items,
            impact=screening_impact,
        )
    return Characterization(
        new_instrument=new,
        original_instrument=original,
        new=figures["new"],
        original=figures["original"],
        reproducibility=repro,
        resolution=res,
        systems=sys,
        mrds=spearman_mrds_table(repro.overlap.n_shared),
        screened=screened_view,
        settings={
            "level": level,
            "bootstrap_resamples": resamples,
            "seed": seed,
            "min_shared_items": min_shared_items,
            "scale_range": scale_range,
        },
    )


def _screened(
    new: Instrument,
    original: Instrument,
    table: pd.DataFrame,
    policy: str,
    scores: Mapping[str, pd.Series] | None,
    *,
    level: Level,
    resamples: int,
    seed: int,
    threshold: float | None,
    scale_range: float,
    minimum: int,
    impact: pd.DataFrame | None,
) -> Screened:
    kept = replace(new, name=f"{new.name} ({policy})", judgments=table, given=None)
    removed = sorted(set(new.judgments["worker_id"]) - set(table["worker_id"]))
    return Screened(
        policy=policy,
        workers_removed=removed,
        new=instrument_figures(
            kept, level=level, resamples=resamples, seed=seed, threshold=threshold
        ),
        reproducibility=_reproduction(
            kept, original, level=level, resamples=resamples, seed=seed, minimum=minimum
        ),
        systems=None
        if not scores
        else systems({"new": table}, scores, scale_range=scale_range, resolution=threshold),
        impact=impact,
    )


def _reproduction(
    new: Instrument, original: Instrument, *, level: Level, resamples: int, seed: int, minimum: int
) -> Reproducibility:
    """`reproducibility` of two instruments, each alpha against its own alpha_min."""
    return reproducibility(
        new.judgments,
        original.judgments,
        new_name=new.name,
        original_name=original.name,
        alpha_mins=(new.alpha_min, original.alpha_min),
        level=level,
        resamples=resamples,
        seed=seed,
        minimum=minimum,
    )


def _check_systems(
    scores: Mapping[str, pd.Series], sources: Mapping[str, str], instruments: dict[str, Instrument]
) -> None:
    for name, series in scores.items():
        for instrument in instruments.values():
            check_system_items(
                series,
                list(instrument.judgments["item_id"].unique()),
                system=name,
                instrument=instrument.name,
                source=sources.get(name, name),
            )


def _scale_range(original: Instrument) -> float:
    """The original's scale range (from what is known, else its observed values)."""
    if original.scale_range is not None:
        low, high = original.scale_range
        return high - low
    values = valued(original.judgments)["value"].astype(float)
    return float(values.max() - values.min()) or 1.0
