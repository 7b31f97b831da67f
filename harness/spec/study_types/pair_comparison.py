"""Pair comparison (the resolution task): an item is a pair of pairs (P, Q), four sides; the
worker says which pair's words are more similar, or that they are equally similar
(docs/methods.md section 2.3). Answers: ``1`` (the first pair), ``-1`` (the second), ``0`` (equal).

A simulated worker answers from the latent difference ``p_mean - q_mean`` that the
``pairs_of_pairs`` generator stores with each item, perceiving each of the two pairs with its
own noise (docs/methods.md section 7; the calibration is in `harness.simulate.perception`).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from harness.i18n import _
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.study_types.base import (
    IDENTICAL_IS_FOR_RATING,
    Scale,
    ScaleProblem,
    StudyTypeDefinition,
    Traits,
    fixed_scale,
    or_skip,
)

if TYPE_CHECKING:
    import pandas as pd

PAIR_CHOICES: tuple[tuple[float, str], ...] = (
    (1.0, "The words of the first pair are more similar to each other"),
    (-1.0, "The words of the second pair are more similar to each other"),
    (0.0, "They are equally similar"),
)
LATENT_RANGE = 10.0
"""The range of the latent similarity scale a pair's truth lies on (WS353's item means, 0-10)."""


class PairComparison(StudyTypeDefinition):
    kind = StudyType.PAIR_COMPARISON
    template = "pair_comparison.html"
    sides = 4
    refused_controls = MappingProxyType(
        {
            "identical": IDENTICAL_IS_FOR_RATING,
            "random_pairs": "random pairs are not defined for pair comparisons",
        }
    )

    def check_scale(self, scale: ScaleSpec) -> list[ScaleProblem]:
        if scale.options or scale.min is not None or scale.max is not None:
            return [
                (
                    (),
                    "a pair comparison has a fixed scale (first pair, "
                    "second pair, equally similar); remove min, max and options",
                )
            ]
        return []

    def resolve_scale(self, scale: ScaleSpec) -> Scale:
        return fixed_scale(self.kind, PAIR_CHOICES, scale.skip)

    def allowed_answers(self, scale: Scale, skip_label: str) -> str:
        return or_skip(_("choose one of the three answers"), scale, skip_label)

    def item_label(self, sides: Sequence[str]) -> str:
        if len(sides) == 4:
            return _("{first} vs {second}").format(
                first=f"{sides[0]} – {sides[1]}", second=f"{sides[2]} – {sides[3]}"
            )
        return super().item_label(sides)

    def example_answer(self, text: str, label: str | None) -> str:
        """The choice's words alone ("They are equally similar")."""
        return label if label is not None else text

    def latent_truths(self, items: pd.DataFrame, truths: pd.Series | None) -> pd.Series:
        """The latent difference of the two pairs, ``p_mean - q_mean`` (``truths`` unused)."""
        return items["p_mean"].astype(float) - items["q_mean"].astype(float)

    def bias_units(self, scale: Scale) -> float:
        return LATENT_RANGE

    def random_answers(self, scale: Scale, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.choice(np.array([-1.0, 0.0, 1.0]), size=n)

    def constant_answers(
        self, constant: float, scale: Scale, rng: np.random.Generator, n: int
    ) -> np.ndarray:
        return np.full(n, constant)

    def truthful_answers(
        self,
        truths: np.ndarray,
        traits: Traits,
        scale: Scale,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Sign of the perceived difference, 0 ("equally similar") when it is smaller than the
        worker's threshold; a backwards worker flips the sign. The worker perceives each pair
        with noise of sd ``traits.perception`` (share of `LATENT_RANGE`), so the difference
        of the two perceptions has sd ``sqrt(2)`` times that. A personal bias shifts both
        pairs alike and cancels; stretch plays no part."""
        spread = np.sqrt(2.0) * traits.perception * LATENT_RANGE
        noisy = truths + rng.normal(0.0, spread, size=len(truths))
        if traits.backwards:
            noisy = -noisy
        return np.where(np.abs(noisy) < traits.equal_threshold, 0.0, np.sign(noisy))


PAIR_COMPARISON = PairComparison()
