"""How a simulated rater compares two pairs, and what a crowd of them is expected to decide.

The model (docs/methods.md section 7, "Pair comparisons"): a rater perceives each word pair's
similarity as the original instrument's mean plus noise of sd ``perception``, independently
for the two pairs; the difference of the two perceptions decides the answer, and the rater says
"equally similar" when it is smaller than their indifference band. Each rater's band is drawn
once, uniform between ``band * (1 - BAND_SPREAD)`` and ``band * (1 + BAND_SPREAD)``.

``PERCEPTION`` and ``BAND`` are fitted (`fit_worked_examples`,
``scripts/calibrate_pair_comparison.py``) to what the published resolution study of WS353
says of one rater: two pairs 0.4 apart are called "equally similar" 80% of the time, and of two
pairs 3.09 apart the more similar is named 92% of the time. Two equations, two unknowns, solved
exactly and rounded. The study's crowd figures on its uniform design (the share of pairs of
pairs not decided like the original, and the resolution) are not fitted: no perception sd and
band of this model give both (docs/methods.md section 7 gives the numbers).

The expected decisions are computed exactly here (the multinomial of the raters' votes), so
the calibration needs no simulation and a test can compare a simulated crowd with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np
from scipy.optimize import fsolve
from scipy.stats import norm

WORKED_EXAMPLES = ((0.4, "equal", 0.80), (3.09, "right", 0.92))
"""The published study's rater: (distance on 0-10, answer, its chance)."""
PERCEPTION = 0.077
"""A careful rater's perception noise, as a share of the latent range (0.77 on 0-10)."""
BAND = 0.152
"""A careful rater's indifference band (centre), as a share of the latent range (1.52)."""
BAND_SPREAD = 0.3
"""Raters' bands spread uniformly +-30% around the centre."""
BAND_POINTS = 21  # quadrature points over the band's spread


def band_range(centre: float, spread: float = BAND_SPREAD) -> tuple[float, float]:
    """The (low, high) ends of the raters' uniform band around ``centre``."""
    return (centre * (1 - spread), centre * (1 + spread))


@dataclass(frozen=True)
class Expected:
    """Expected decision of a crowd per pair of pairs: agree, "equally similar", reversed."""

    agree: np.ndarray
    equal: np.ndarray
    reversed: np.ndarray


def vote_probabilities(
    distance: np.ndarray, perception: float, band: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One rater's chance to answer right, wrong and "equally similar" at each ``distance``
    (all in the latent scale's units; ``band`` = the raters' (low, high) band, uniform)."""
    d = np.abs(np.asarray(distance, dtype=float))
    spread = np.sqrt(2.0) * perception
    low, high = band
    bands = (
        np.array([low])
        if high <= low
        else low + (high - low) * (np.arange(BAND_POINTS) + 0.5) / BAND_POINTS
    )
    if spread == 0:
        right = np.mean([(d > b) for b in bands], axis=0).astype(float)
        return right, np.zeros_like(d), 1.0 - right
    right = np.mean([norm.sf((b - d) / spread) for b in bands], axis=0)
    wrong = np.mean([norm.cdf((-b - d) / spread) for b in bands], axis=0)
    return right, wrong, np.clip(1.0 - right - wrong, 0.0, 1.0)


def expected_decisions(
    distance: np.ndarray, perception: float, band: tuple[float, float], raters: int
) -> Expected:
    """Exact chances that ``raters`` independent raters' plurality agrees with the original,
    says "equally similar" (a tie for the most votes counts as that, as in
    `harness.characterize.resolution`), or reverses the order, per distance (> 0)."""
    right, wrong, equal = vote_probabilities(distance, perception, band)
    return plurality_chances(right, wrong, equal, raters)


def plurality_chances(
    right: np.ndarray, wrong: np.ndarray, equal: np.ndarray, raters: int
) -> Expected:
    """From one rater's chances of each answer: the chances that the plurality of ``raters``
    independent raters is right, "equally similar" (a tie for the most votes included), or
    wrong, summed over every split of the votes (multinomial)."""
    agree = np.zeros_like(right)
    reverse = np.zeros_like(right)
    for a in range(raters + 1):
        for b in range(raters + 1 - a):
            c = raters - a - b
            chance = (
                factorial(raters)
                / (factorial(a) * factorial(b) * factorial(c))
                * right**a
                * wrong**b
                * equal**c
            )
            if a > b and a > c:
                agree += chance
            elif b > a and b > c:
                reverse += chance
    return Expected(agree=agree, equal=np.clip(1.0 - agree - reverse, 0.0, 1.0), reversed=reverse)


def fit_worked_examples(spread: float = BAND_SPREAD) -> tuple[float, float]:
    """The perception sd and band centre (0-10) at which one rater answers the published
    worked examples' chances exactly (`WORKED_EXAMPLES`)."""

    def misses(x: np.ndarray) -> list[float]:
        perception, centre = float(x[0]), float(x[1])
        out = []
        for distance, answer, chance in WORKED_EXAMPLES:
            right, _, equal = vote_probabilities(
                np.array([distance]), perception, band_range(centre, spread)
            )
            out.append(float((equal if answer == "equal" else right)[0]) - chance)
        return out

    solution = fsolve(misses, np.array([1.0, 1.5]), xtol=1e-12)
    return float(solution[0]), float(solution[1])


def expected_resolution(
    distance: np.ndarray,
    agree: np.ndarray,
    *,
    step: float = 0.1,
    target: float = 0.95,
    min_pairs: int = 10,
) -> float | None:
    """The cumulative resolution of an expected curve: the smallest t (in ``step``s) where the
    mean chance of agreement over the pairs of pairs with distance >= t reaches ``target``."""
    d = np.asarray(distance, dtype=float)
    order = np.argsort(-d)
    tail_sum = np.cumsum(agree[order])  # pairs with the largest distances first
    for k in range(int(np.floor(d.max() / step + 1e-9)) + 1):
        t = k * step
        n = int((d >= t - 1e-9).sum())
        if n >= min_pairs and tail_sum[n - 1] / n >= target:
            return round(t, 10)
    return None


__all__ = [
    "BAND",
    "BAND_SPREAD",
    "PERCEPTION",
    "WORKED_EXAMPLES",
    "Expected",
    "band_range",
    "expected_decisions",
    "expected_resolution",
    "fit_worked_examples",
    "plurality_chances",
    "vote_probabilities",
]
