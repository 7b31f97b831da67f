"""The psychometric curve of a resolution study: agreement as a logistic function of distance.

The cumulative resolution (`harness.characterize.resolution`) pools every pair of pairs at or
above a threshold, so it depends on the design: a design with most pairs far apart reaches 95%
sooner. The psychometric curve asks the question per distance instead. Each pair of pairs is a
trial whose outcome is 1 when the crowd's decision agrees with the original (as in the
cumulative definition, "equally similar" is 0), and

    P(agree | d) = 1 / (1 + exp(-(b0 + b1 d)))

is fitted by maximum likelihood (Newton's method). ``d95`` is where the fitted curve reaches
95%: (logit(0.95) - b0) / b1. Its interval is the percentile bootstrap over pairs of pairs
(resampled with replacement, ``resamples`` times, from a fixed seed). A fit fails when the
outcomes are separable by distance (every pair of pairs above some distance agrees and every
one below disagrees: the maximum-likelihood slope is infinite), when they are all alike, or
when the slope is not positive (agreement does not rise with distance); the bootstrap counts
the resamples whose fit failed and leaves them out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

TARGET = 0.95
RESAMPLES = 1000
SEED = 0
_MAX_STEPS = 100
_MAX_SLOPE = 50.0  # per unit of distance: beyond it the outcomes are (nearly) separable
_TOLERANCE = 1e-10
_CHUNK_VALUES = 2_000_000  # resamples x pairs of pairs fitted at once


@dataclass(frozen=True)
class Psychometric:
    """A fitted logistic curve of agreement in distance, with ``d95`` and its interval."""

    intercept: float
    slope: float
    target: float
    d_target: float  # distance where the curve reaches ``target``
    ci: tuple[float, float] | None  # percentile bootstrap interval of d_target
    resamples: int
    failed: int  # resamples whose fit failed (left out of the interval)
    n: int  # pairs of pairs
    max_distance: float  # the largest distance of the data

    @property
    def extrapolated(self) -> bool:
        """Whether the curve reaches the target only beyond the data's largest distance."""
        return self.d_target > self.max_distance

    def at(self, distance: np.ndarray) -> np.ndarray:
        """The fitted agreement at each distance."""
        return _logistic(self.intercept + self.slope * np.asarray(distance, dtype=float))

    def to_dict(self) -> dict[str, Any]:
        ci = None if self.ci is None else list(self.ci)
        return asdict(self) | {"ci": ci, "extrapolated": self.extrapolated}


def fit_logistic(distance: np.ndarray, agrees: np.ndarray) -> tuple[float, float] | None:
    """Maximum-likelihood (intercept, slope) of P(agree) = logistic(b0 + b1 d); None when the
    fit fails (separable or uniform outcomes, or a slope that is not positive)."""
    fitted = _fit_many(np.asarray(distance, float)[None, :], np.asarray(agrees, float)[None, :])
    b0, b1 = fitted[0]
    return None if np.isnan(b0) else (float(b0), float(b1))


def psychometric(
    distance: np.ndarray,
    agrees: np.ndarray,
    *,
    target: float = TARGET,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Psychometric | None:
    """The fitted curve, where it reaches ``target`` and that distance's bootstrap interval;
    None when the fit on all pairs of pairs fails."""
    d = np.asarray(distance, dtype=float)
    y = np.asarray(agrees, dtype=float)
    fitted = fit_logistic(d, y)
    if fitted is None:
        return None
    b0, b1 = fitted
    logit = float(np.log(target / (1 - target)))
    d_target = (logit - b0) / b1
    picks = bootstrap_indices(len(d), resamples, seed)
    chunk = max(1, _CHUNK_VALUES // max(len(d), 1))  # bound the memory of one Newton step
    boot = np.empty((0, 2))
    for first in range(0, resamples, chunk):
        rows = picks[first : first + chunk]
        boot = np.concatenate([boot, _fit_many(d[rows], y[rows])])
    ok = ~np.isnan(boot[:, 0])
    values = (logit - boot[ok, 0]) / boot[ok, 1]
    ci = (
        (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))
        if len(values)
        else None
    )
    return Psychometric(
        intercept=b0,
        slope=b1,
        target=target,
        d_target=float(d_target),
        ci=ci,
        resamples=resamples,
        failed=int((~ok).sum()),
        n=len(d),
        max_distance=float(d.max()),
    )


def bootstrap_indices(n: int, resamples: int, seed: int = SEED) -> np.ndarray:
    """The resamples, as rows of indices drawn with replacement (the same seed, the same rows)."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def _logistic(z: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def _fit_many(d: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Newton's method on each row (one data set per row) at once: (rows, 2) of (b0, b1), NaN
    where the fit fails."""
    rows = d.shape[0]
    mean_y = y.mean(axis=1)
    ok = (mean_y > 0) & (mean_y < 1)
    b = np.zeros((rows, 2))
    b[ok, 0] = np.log(mean_y[ok] / (1 - mean_y[ok]))
    done = ~ok
    for _ in range(_MAX_STEPS):
        active = np.flatnonzero(~done)
        if not len(active):
            break
        da, ya, ba = d[active], y[active], b[active]
        p = _logistic(ba[:, :1] + ba[:, 1:] * da)
        w = p * (1 - p)
        r = ya - p
        g0, g1 = r.sum(axis=1), (r * da).sum(axis=1)
        h00, h01, h11 = w.sum(axis=1), (w * da).sum(axis=1), (w * da * da).sum(axis=1)
        det = h00 * h11 - h01 * h01
        singular = det <= 1e-12 * np.maximum(h00 * h11, 1e-300)
        safe = np.where(singular, 1.0, det)
        step0 = (h11 * g0 - h01 * g1) / safe
        step1 = (h00 * g1 - h01 * g0) / safe
        b[active, 0] += np.where(singular, 0.0, step0)
        b[active, 1] += np.where(singular, 0.0, step1)
        runaway = singular | (np.abs(b[active, 1]) > _MAX_SLOPE)
        converged = (np.abs(step0) + np.abs(step1)) < _TOLERANCE * (1 + np.abs(b[active]).sum(1))
        ok[active[runaway]] = False
        done[active[runaway | converged]] = True
    ok &= done & (b[:, 1] > 0)
    b[~ok] = np.nan
    return b
