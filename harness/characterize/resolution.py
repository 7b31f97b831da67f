"""Resolution (METHODS.md section 6): the smallest difference the crowd orders like the original.

Input: a pair-comparison study over the original's items. Each of its items is a pair of pairs
(P, Q) whose judgments carry ``p_item_id`` and ``q_item_id`` (the columns the ``pairs_of_pairs``
generator of `harness.spec.generators` writes and the store keeps as display columns). Values
are coded as in `harness.judgments`: 1 P more similar, -1 Q more similar, 0 equally similar.

- Distance d = |mean(P) - mean(Q)| in the original instrument (means recomputed from its votes).
- Decision per pair of pairs: the option with the most votes, with its share of the votes; a
  tie for the most votes is decided as "equally similar" (the crowd did not order the pairs).
- Agreement at threshold t: among pairs of pairs with d >= t, the share whose decision names as
  more similar the pair the original scores higher; "equally similar" counts as disagreement.
- Curve: agreement at t = 0, step, 2 step, ... up to the largest d (step = 1% of the scale's
  range: 0.1 on WS353's 0-10 scale), with the number of pairs of pairs at each t.
- Resolution = the smallest t of the curve where agreement reaches 95% with at least
  ``min_pairs`` (10) pairs of pairs above t; None when it never does. ``stable`` says whether
  agreement stays at or above 95% at every larger t with that many pairs. Its interval: the
  2.5th and 97.5th percentiles of the resolution over bootstrap resamples of the pairs of
  pairs (the psychometric curve's resamples); resamples where 95% is never reached are left
  out and counted (``threshold_unreached``).
- Item pairs above / below: of all item pairs of the original, how many have d >= resolution
  (orderable by the new crowd) and how many have d < resolution.

The cumulative resolution is the headline (the published definition). Because it pools every
pair of pairs above t, it depends on the design (a design with most pairs far apart reaches 95%
sooner), so two design-free views sit beside it:
- Bands: agreement per distance band [a, a + width) (width = 10% of the scale's range: 1.0 on
  WS353), with the number of pairs of pairs and of decisions that agree, say "equally
  similar", or reverse the original's order (or order two pairs the original scores alike).
- Psychometric curve: agreement as a logistic function of distance, fitted by maximum
  likelihood over the pairs of pairs, with the distance where it reaches 95% and that
  distance's bootstrap interval (`harness.characterize.psychometric`).

Distances are compared to t with a tolerance of 1e-9 (see `rank_stability.TOLERANCE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.characterize.psychometric import (
    RESAMPLES,
    SEED,
    Psychometric,
    bootstrap_indices,
    psychometric,
)
from harness.characterize.rank_stability import TOLERANCE, pairs_at_least
from harness.errors import InputError
from harness.stats._table import valued

TARGET = 0.95
MIN_PAIRS = 10
BAND_SHARE = 0.1  # band width, as a share of the scale's range
DESIGN_COLUMNS = ("p_item_id", "q_item_id")
_MAX_NAMED = 5
_FLOAT_BAND_COLUMNS = ("low", "high", "agreement")


@dataclass(frozen=True)
class Resolution:
    decisions: pd.DataFrame  # per pair of pairs: ids, distance, expected, votes, decision, ...
    curve: pd.DataFrame  # threshold, agreement, n
    bands: pd.DataFrame  # low, high, n, agree, equal, reversed, agreement
    psychometric: Psychometric | None  # None when the logistic fit fails
    threshold_95: float | None
    threshold_ci: tuple[float, float] | None  # 95% bootstrap interval of threshold_95
    threshold_unreached: int  # resamples in which 95% was never reached (left out)
    stable: bool
    item_pairs_above: int | None
    item_pairs_below: int | None
    n_item_pairs: int
    target: float
    min_pairs: int
    step: float

    @property
    def agreement_all(self) -> float:
        return float(self.decisions["agrees"].mean())

    def to_dict(self) -> dict[str, Any]:
        return {
            "threshold_95": self.threshold_95,
            "threshold_ci": None if self.threshold_ci is None else list(self.threshold_ci),
            "threshold_unreached": self.threshold_unreached,
            "stable_above": self.stable,
            "target": self.target,
            "min_pairs": self.min_pairs,
            "step": self.step,
            "curve": [
                {"threshold": float(t), "agreement": float(a), "n": int(n)}
                for t, a, n in self.curve[["threshold", "agreement", "n"]].itertuples(index=False)
            ],
            "bands": [
                {k: float(v) if k in _FLOAT_BAND_COLUMNS else int(v) for k, v in row.items()}
                for row in self.bands.to_dict("records")
            ],
            "psychometric": None if self.psychometric is None else self.psychometric.to_dict(),
            "item_pairs_above": self.item_pairs_above,
            "item_pairs_below": self.item_pairs_below,
            "n_item_pairs": self.n_item_pairs,
            "n_pairs_of_pairs": len(self.decisions),
            "agreement_all": self.agreement_all,
            "mean_decision_share": float(self.decisions["share"].mean()),
        }


def pair_decisions(
    judgments: pd.DataFrame, original_means: pd.Series, *, source: str = "the resolution study"
) -> pd.DataFrame:
    """One row per pair of pairs: ``p_item_id, q_item_id, distance, expected, votes_p, votes_q,
    votes_equal, decision, share, agrees`` (index: the pair of pairs' item_id)."""
    missing = [c for c in DESIGN_COLUMNS if c not in judgments.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(missing)}; a resolution study's judgments "
            "name the two word pairs of each pair of pairs in p_item_id and q_item_id "
            "(the pairs_of_pairs generator's columns)"
        )
    design = judgments[["item_id", *DESIGN_COLUMNS]].astype(str).drop_duplicates("item_id")
    design = design.set_index("item_id")
    unknown = sorted(
        set(design["p_item_id"]).union(design["q_item_id"]) - set(original_means.index)
    )
    if unknown:
        named = ", ".join(unknown[:_MAX_NAMED]) + (" ..." if len(unknown) > _MAX_NAMED else "")
        raise InputError(
            f"{source}: {len(unknown)} item(s) of its pairs of pairs are not items of the "
            f"original instrument ({named}); a resolution study must compare the original's items"
        )
    values = valued(judgments)
    bad = ~values["value"].isin([-1.0, 0.0, 1.0])
    if bad.any():
        raise InputError(
            f"{source}: {int(bad.sum())} value(s) are not pair-comparison answers (1 first pair "
            f"more similar, -1 second, 0 equal), e.g. {values.loc[bad, 'value'].iloc[0]!r}"
        )
    counts = (
        values.groupby(["item_id", "value"])
        .size()
        .unstack(fill_value=0)
        .reindex(columns=[1.0, -1.0, 0.0], fill_value=0)
    )
    counts.columns = pd.Index(["votes_p", "votes_q", "votes_equal"])
    out = design.join(counts, how="inner")
    p_mean = original_means.reindex(out["p_item_id"]).to_numpy(dtype=float)
    q_mean = original_means.reindex(out["q_item_id"]).to_numpy(dtype=float)
    out["distance"] = np.abs(p_mean - q_mean)
    out["expected"] = np.sign(p_mean - q_mean)
    votes = out[["votes_p", "votes_q", "votes_equal"]].to_numpy()
    top = votes.max(axis=1)
    tied = (votes == top[:, None]).sum(axis=1) > 1
    decision = np.array([1.0, -1.0, 0.0])[votes.argmax(axis=1)]
    out["decision"] = np.where(tied, 0.0, decision)
    out["share"] = top / votes.sum(axis=1)
    out["agrees"] = (out["decision"] == out["expected"]) & (out["decision"] != 0)
    return out


def resolution(
    judgments: pd.DataFrame,
    original_means: pd.Series,
    *,
    scale_range: float = 10.0,
    target: float = TARGET,
    min_pairs: int = MIN_PAIRS,
    source: str = "the resolution study",
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Resolution:
    """Decisions, agreement curve, resolution and item pairs above / below it; the bands and
    the psychometric curve (its interval from ``resamples`` bootstrap resamples, ``seed``)."""
    decisions = pair_decisions(judgments, original_means, source=source)
    step = scale_range / 100
    distance = decisions["distance"].to_numpy()
    agrees = decisions["agrees"].to_numpy()
    thresholds = np.arange(0, int(np.floor(distance.max() / step + TOLERANCE)) + 1) * step
    n, agreement = _cumulative(distance, agrees, thresholds)
    curve = pd.DataFrame({"threshold": np.round(thresholds, 10), "agreement": agreement, "n": n})
    eligible = (curve["n"] >= min_pairs).to_numpy()
    reached = np.flatnonzero(eligible & (agreement >= target))
    threshold = float(curve["threshold"].iloc[reached[0]]) if len(reached) else None
    resampled = (
        _resampled_thresholds(
            distance,
            agrees,
            thresholds,
            target,
            min_pairs,
            bootstrap_indices(len(distance), resamples, seed),
        )
        if resamples
        else np.empty(0)
    )
    found = resampled[np.isfinite(resampled)]
    threshold_ci = (
        (float(np.percentile(found, 2.5)), float(np.percentile(found, 97.5)))
        if threshold is not None and len(found)
        else None
    )
    stable = bool(
        len(reached) and (agreement[reached[0] :][eligible[reached[0] :]] >= target).all()
    )
    means = original_means.to_numpy(dtype=float)
    n_pairs = len(means) * (len(means) - 1) // 2
    above_count = None if threshold is None else pairs_at_least(means, threshold)
    return Resolution(
        decisions=decisions,
        curve=curve,
        bands=agreement_bands(decisions, BAND_SHARE * scale_range),
        psychometric=psychometric(distance, agrees, target=target, resamples=resamples, seed=seed),
        threshold_95=threshold,
        threshold_ci=threshold_ci,
        threshold_unreached=int(len(resampled) - len(found)),
        stable=stable,
        item_pairs_above=above_count,
        item_pairs_below=None if above_count is None else n_pairs - above_count,
        n_item_pairs=n_pairs,
        target=target,
        min_pairs=min_pairs,
        step=step,
    )


def _resampled_thresholds(
    distance: np.ndarray,
    agrees: np.ndarray,
    thresholds: np.ndarray,
    target: float,
    min_pairs: int,
    indices: np.ndarray,
) -> np.ndarray:
    """The resolution of each resample (rows of ``indices``); NaN where it is not reached."""
    out = np.full(len(indices), np.nan)
    for k, rows in enumerate(indices):
        n, agreement = _cumulative(distance[rows], agrees[rows], thresholds)
        reached = np.flatnonzero((n >= min_pairs) & (agreement >= target))
        if len(reached):
            out[k] = round(float(thresholds[reached[0]]), 10)
    return out


def _cumulative(
    distance: np.ndarray, agrees: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per threshold t: how many pairs of pairs lie at distance >= t, and the share of them
    that agree (0 when none do)."""
    above = distance[None, :] >= thresholds[:, None] - TOLERANCE
    n = above.sum(axis=1)
    return n, (above & agrees[None, :]).sum(axis=1) / np.maximum(n, 1)


def agreement_bands(decisions: pd.DataFrame, width: float) -> pd.DataFrame:
    """Per distance band [low, low + width): how many pairs of pairs, how many decisions
    agree, say "equally similar", reverse the original (or order two pairs the original
    scores alike); and the agreement. Bands from 0 up to
    the one holding the largest distance; a band with no pair of pairs has agreement NaN."""
    distance = decisions["distance"].to_numpy(dtype=float)
    index = np.floor(distance / width + TOLERANCE).astype(int)
    top = int(index.max()) if len(index) else 0
    decision = decisions["decision"].to_numpy(dtype=float)
    agrees = decisions["agrees"].to_numpy(dtype=bool)
    rows = []
    for k in range(top + 1):
        at = index == k
        n = int(at.sum())
        rows.append(
            {
                "low": round(k * width, 10),
                "high": round((k + 1) * width, 10),
                "n": n,
                "agree": int(agrees[at].sum()),
                "equal": int((decision[at] == 0).sum()),
                "reversed": int(((decision[at] != 0) & ~agrees[at]).sum()),
                "agreement": float(agrees[at].mean()) if n else float("nan"),
            }
        )
    return pd.DataFrame(rows)
