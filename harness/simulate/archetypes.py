"""Response models of simulated workers: the archetypes of docs/methods.md section 7.

Each archetype is a recipe for drawing one worker's personal traits (bias, noise, constant
value, "equally similar" threshold) and for answering from latent truths with them. Noise and
bias are given as shares of the scale's range, so "sd 1.2 on a 0-10 scale" becomes 0.12 and the
same crowd behaves alike on a 1-5 Likert scale.

The archetype says how a worker answers (at random, a constant, or from the truth with its
traits); the study type (`harness.spec.study_types`) says what that looks like on its scale.
Rating and Likert: the truth is a point on the scale and answers are snapped to it. Pair
comparison: the truth is the latent difference (first pair's truth minus the second's, on a
latent similarity scale of range 10, WS353's); the worker perceives each pair with
noise of sd ``perception`` and answers the sign of the perceived difference, or 0 ("equally
similar") when it is below the worker's personal band. A backwards worker flips the sign. The
careful worker's perception and band are calibrated on WS353 (`harness.simulate.perception`);
a sloppy worker perceives with twice the noise, a radical one never says "equally similar",
a centrist one says it within a wide band. On a scale, a radical worker pushes answers to the
ends and a centrist one to the points a quarter of the range in from them (2 and 4 on 1-5, 2.5
and 7.5 on 0-10), the published centrist's pattern carried over proportionally.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from harness.simulate.perception import BAND, PERCEPTION, band_range
from harness.spec.scale import Scale
from harness.spec.study_types import Traits, definition
from harness.spec.study_types.pair_comparison import LATENT_RANGE


class Archetype(StrEnum):
    """The kinds of simulated worker (docs/methods.md section 7)."""

    CAREFUL = "careful"
    SLOPPY = "sloppy"
    SPAMMER = "spammer"
    STRAIGHT_LINER = "straight_liner"
    BACKWARDS = "backwards"
    RADICAL = "radical"
    CENTRIST = "centrist"
    SLOW = "slow"
    MODEL_ASSISTED = "model_assisted"
    BOT = "bot"


@dataclass(frozen=True)
class ResponseModel:
    """How an archetype answers and how long it takes (shares of the scale's range)."""

    noise: float  # sd of the per-answer noise
    bias_sd: float  # sd of the personal bias, drawn once per worker
    stretch: float = 1.0  # values pushed away from (>1) or pulled toward (<1) the midpoint
    median_seconds: float = 7.0  # per item, lognormal
    seconds_sigma: float = 0.5
    equal_threshold: tuple[float, float] = band_range(BAND)  # pair comparison, share of range
    perception: float = PERCEPTION  # pair comparison: sd of the noise on each pair perceived
    inset: float = 0.0  # share of the range at each end never answered


MODELS: dict[Archetype, ResponseModel] = {
    Archetype.CAREFUL: ResponseModel(noise=0.12, bias_sd=0.03),
    Archetype.SLOPPY: ResponseModel(
        noise=0.25, bias_sd=0.05, median_seconds=4.0, perception=2 * PERCEPTION
    ),
    Archetype.SPAMMER: ResponseModel(noise=0.0, bias_sd=0.0, median_seconds=1.2),
    Archetype.STRAIGHT_LINER: ResponseModel(noise=0.0, bias_sd=0.0, median_seconds=1.5),
    Archetype.BACKWARDS: ResponseModel(noise=0.12, bias_sd=0.03),
    Archetype.RADICAL: ResponseModel(
        noise=0.12, bias_sd=0.03, stretch=2.5, equal_threshold=(0.0, 0.0)
    ),
    Archetype.CENTRIST: ResponseModel(
        noise=0.12, bias_sd=0.03, stretch=2.5, equal_threshold=(0.2, 0.3), inset=0.25
    ),
    Archetype.SLOW: ResponseModel(noise=0.12, bias_sd=0.03, median_seconds=400.0),
    # answers a language-model-like system's ratings (`harness.simulate.machine`), fast and
    # steady, no lapses; a bot repeats a pattern at a clockwork pace
    Archetype.MODEL_ASSISTED: ResponseModel(
        noise=0.03, bias_sd=0.0, median_seconds=3.5, seconds_sigma=0.1
    ),
    Archetype.BOT: ResponseModel(noise=0.0, bias_sd=0.0, median_seconds=2.5, seconds_sigma=0.01),
}

PATTERN = 3  # a bot's answers repeat a pattern of this many values


@dataclass(frozen=True)
class Worker:
    """One simulated worker: an archetype and the personal traits drawn for it."""

    worker_id: str
    archetype: Archetype
    bias: float  # in scale units (latent units for pair comparison)
    constant: float  # a straight-liner's answer
    equal_threshold: float  # pair comparison, latent units
    pattern: tuple[float, ...] = ()  # a bot's repeated answers

    @classmethod
    def draw(
        cls,
        worker_id: str,
        archetype: Archetype,
        scale: Scale,
        rng: np.random.Generator,
    ) -> Worker:
        """A worker of ``archetype`` with personal traits drawn from ``rng``."""
        model = MODELS[archetype]
        units = definition(scale.kind).bias_units(scale)
        bias = float(rng.normal(0.0, model.bias_sd)) * units
        constant = float(scale.snap(np.array([rng.uniform(scale.min, scale.max)]))[0])
        low, high = model.equal_threshold
        threshold = float(rng.uniform(low, high)) * LATENT_RANGE
        pattern: tuple[float, ...] = ()
        if archetype is Archetype.BOT:  # drawn only for bots: other crowds draw as before
            pattern = tuple(
                float(v) for v in scale.snap(rng.uniform(scale.min, scale.max, PATTERN))
            )
        return cls(worker_id, archetype, bias, constant, threshold, pattern)

    def answer(
        self,
        truths: np.ndarray,
        scale: Scale,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """This worker's answers to items with latent ``truths``, snapped to ``scale``.

        The archetype decides how the worker answers (at random, a constant, a bot's pattern,
        or from the truth with its traits); the study type decides what that looks like on its
        scale. A model-assisted worker is given the machine's answers as its ``truths``
        (`harness.simulate.crowd.simulate_judgments` does so).
        """
        truths = np.asarray(truths, dtype=float)
        kind = definition(scale.kind)
        if self.archetype is Archetype.SPAMMER:
            return kind.random_answers(scale, rng, len(truths))
        if self.archetype is Archetype.STRAIGHT_LINER:
            return kind.constant_answers(self.constant, scale, rng, len(truths))
        if self.archetype is Archetype.BOT:
            return np.resize(np.asarray(self.pattern, dtype=float), len(truths))
        model = MODELS[self.archetype]
        traits = Traits(
            bias=self.bias,
            noise=model.noise,
            stretch=model.stretch,
            backwards=self.archetype is Archetype.BACKWARDS,
            equal_threshold=self.equal_threshold,
            perception=model.perception,
            inset=model.inset,
        )
        return kind.truthful_answers(truths, traits, scale, rng)

    def seconds(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Seconds spent on each of ``n`` items: lognormal around the archetype's median."""
        model = MODELS[self.archetype]
        return np.round(rng.lognormal(np.log(model.median_seconds), model.seconds_sigma, n), 2)
