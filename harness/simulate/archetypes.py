"""Response models of simulated workers: the archetypes of METHODS.md section 7.

Each archetype is a recipe for drawing one worker's personal traits (bias, noise, constant
value, "equally similar" threshold) and for answering from latent truths with them. Noise and
bias are given as shares of the scale's range, so "sd 1.2 on a 0-10 scale" becomes 0.12 and the
same crowd behaves alike on a 1-5 Likert scale. Answers are snapped to the scale by `snap`.

Rating and Likert: the truth is a point on the scale. Pair comparison: the truth is the latent
difference (first pair's truth minus the second's, on a latent similarity scale whose range is
``latent_range``); the answer is its sign, or 0 ("equally similar") when the noisy difference is
below the worker's personal threshold. A backwards worker flips the sign.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from harness.simulate.rounding import snap
from harness.spec.model import StudyType
from harness.spec.scale import Scale


class Archetype(StrEnum):
    """The kinds of simulated worker (METHODS.md section 7)."""

    CAREFUL = "careful"
    SLOPPY = "sloppy"
    SPAMMER = "spammer"
    STRAIGHT_LINER = "straight_liner"
    BACKWARDS = "backwards"
    RADICAL = "radical"
    CENTRIST = "centrist"
    SLOW = "slow"


@dataclass(frozen=True)
class ResponseModel:
    """How an archetype answers and how long it takes (shares of the scale's range)."""

    noise: float  # sd of the per-answer noise
    bias_sd: float  # sd of the personal bias, drawn once per worker
    stretch: float = 1.0  # values pushed away from (>1) or pulled toward (<1) the midpoint
    median_seconds: float = 7.0  # per item, lognormal
    seconds_sigma: float = 0.5
    equal_threshold: tuple[float, float] = (0.03, 0.10)  # pair comparison, share of latent range


MODELS: dict[Archetype, ResponseModel] = {
    Archetype.CAREFUL: ResponseModel(noise=0.12, bias_sd=0.03),
    Archetype.SLOPPY: ResponseModel(noise=0.25, bias_sd=0.05, median_seconds=4.0),
    Archetype.SPAMMER: ResponseModel(noise=0.0, bias_sd=0.0, median_seconds=1.2),
    Archetype.STRAIGHT_LINER: ResponseModel(noise=0.0, bias_sd=0.0, median_seconds=1.5),
    Archetype.BACKWARDS: ResponseModel(noise=0.12, bias_sd=0.03),
    Archetype.RADICAL: ResponseModel(
        noise=0.12, bias_sd=0.03, stretch=2.5, equal_threshold=(0.0, 0.0)
    ),
    Archetype.CENTRIST: ResponseModel(
        noise=0.08, bias_sd=0.02, stretch=0.35, equal_threshold=(0.2, 0.3)
    ),
    Archetype.SLOW: ResponseModel(noise=0.12, bias_sd=0.03, median_seconds=400.0),
}

STRAIGHT_LINE_SLIP = 0.05  # share of a straight-liner's answers one step off the constant


@dataclass(frozen=True)
class Worker:
    """One simulated worker: an archetype and the personal traits drawn for it."""

    worker_id: str
    archetype: Archetype
    bias: float  # in scale units (latent units for pair comparison)
    constant: float  # a straight-liner's answer
    equal_threshold: float  # pair comparison, latent units

    @classmethod
    def draw(
        cls,
        worker_id: str,
        archetype: Archetype,
        scale: Scale,
        rng: np.random.Generator,
        latent_range: float = 10.0,
    ) -> Worker:
        """A worker of ``archetype`` with personal traits drawn from ``rng``."""
        model = MODELS[archetype]
        units = latent_range if scale.kind is StudyType.PAIR_COMPARISON else scale.range
        bias = float(rng.normal(0.0, model.bias_sd)) * units
        constant = float(snap(np.array([rng.uniform(scale.min, scale.max)]), scale)[0])
        low, high = model.equal_threshold
        threshold = float(rng.uniform(low, high)) * latent_range
        return cls(worker_id, archetype, bias, constant, threshold)

    def answer(
        self,
        truths: np.ndarray,
        scale: Scale,
        rng: np.random.Generator,
        latent_range: float = 10.0,
    ) -> np.ndarray:
        """This worker's answers to items with latent ``truths``, snapped to ``scale``."""
        truths = np.asarray(truths, dtype=float)
        if scale.kind is StudyType.PAIR_COMPARISON:
            return self._compare(truths, scale, rng, latent_range)
        model = MODELS[self.archetype]
        n = len(truths)
        if self.archetype is Archetype.SPAMMER:
            if scale.options:
                return rng.choice(np.array([v for v, _, _ in scale.options]), size=n)
            return snap(rng.uniform(scale.min, scale.max, size=n), scale)
        if self.archetype is Archetype.STRAIGHT_LINER:
            slips = rng.random(n) < STRAIGHT_LINE_SLIP
            offsets = np.where(slips, rng.choice([-1.0, 1.0], size=n) * scale.step, 0.0)
            return snap(self.constant + offsets, scale)
        base = scale.max + scale.min - truths if self.archetype is Archetype.BACKWARDS else truths
        raw = base + self.bias + rng.normal(0.0, model.noise * scale.range, size=n)
        raw = scale.midpoint + (raw - scale.midpoint) * model.stretch
        return snap(raw, scale)

    def _compare(
        self, differences: np.ndarray, scale: Scale, rng: np.random.Generator, latent_range: float
    ) -> np.ndarray:
        """Pair comparison: sign of the noisy latent difference, 0 below the threshold."""
        n = len(differences)
        choices = np.array([-1.0, 0.0, 1.0])
        if self.archetype is Archetype.SPAMMER:
            return rng.choice(choices, size=n)
        if self.archetype is Archetype.STRAIGHT_LINER:
            return np.full(n, self.constant)
        model = MODELS[self.archetype]
        noisy = differences + rng.normal(0.0, model.noise * latent_range, size=n)
        if self.archetype is Archetype.BACKWARDS:
            noisy = -noisy
        return np.where(np.abs(noisy) < self.equal_threshold, 0.0, np.sign(noisy))

    def seconds(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Seconds spent on each of ``n`` items: lognormal around the archetype's median."""
        model = MODELS[self.archetype]
        return np.round(rng.lognormal(np.log(model.median_seconds), model.seconds_sigma, n), 2)
