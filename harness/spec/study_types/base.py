"""What a study type is: the scale its answers live on, and the definition every stage asks.

docs/methods.md section 2. Each study type (rating, Likert, pair comparison) is one module of this
package holding a `StudyTypeDefinition`; `harness.spec.study_types.REGISTRY` maps `StudyType`
to it, and spec, render, simulate and screening ask the registry instead of branching on the
type. The package imports nothing from harness but `harness.spec.model` and `harness.i18n` (which
imports nothing of harness: what a worker is told goes through the catalogs), so every stage may
use it and none of them is imported by it.

The defaults below are what rating and Likert share, and what a new type gets for free: a
scale of points (a numeric range, or a list of options) answered by picking one point, and a
simulated worker who answers from a latent truth on that scale.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

import numpy as np

from harness.i18n import _, format_number
from harness.spec.model import ScaleSpec, StudyType

if TYPE_CHECKING:
    import pandas as pd

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]
"""Krippendorff's alpha levels (the same four as `harness.stats.Level`)."""

ScaleProblem = tuple[tuple[str, ...], str]
"""A problem with a spec's ``scale`` section: the path below ``scale`` and the message."""

IDENTICAL_IS_FOR_RATING = "identical pairs are calibration items for rating studies"
LABEL_WIDTH = 60  # an item named in a worker's error message is cut to this many characters
STRAIGHT_LINE_SLIP = 0.05  # share of a straight-liner's answers one step off the constant


@dataclass(frozen=True)
class Scale:
    """The values a judgment may take: ``options`` (value, label, colour) in display order,
    else ``min``..``max`` in ``step``s (any value with ``decimals`` places if ``fractional``)."""

    kind: StudyType
    min: float
    max: float
    step: float
    fractional: bool
    decimals: int
    options: tuple[tuple[float, str, str | None], ...]  # (value, label, colour) in display order
    skip: bool

    @property
    def range(self) -> float:
        return self.max - self.min

    @property
    def midpoint(self) -> float:
        return (self.min + self.max) / 2

    def accepts(self, value: float) -> bool:
        """Whether ``value`` is a valid answer on this scale."""
        if self.options:
            return any(abs(value - v) < 1e-9 for v, _, _ in self.options)
        if not (self.min - 1e-9 <= value <= self.max + 1e-9):
            return False
        if self.fractional:
            return abs(round(value, self.decimals) - value) < 1e-9
        steps = (value - self.min) / self.step
        return abs(steps - round(steps)) < 1e-6

    def describe(self) -> str:
        if self.options:
            return ", ".join(f"{v:g} ({label})" for v, label, _ in self.options)
        grain = f"up to {self.decimals} decimals" if self.fractional else f"steps of {self.step:g}"
        return f"{self.min:g} to {self.max:g}, {grain}"

    def snap(self, values: np.ndarray) -> np.ndarray:
        """``values`` moved to the nearest answer the scale accepts (options, else steps),
        after clipping them to the scale's ends."""
        raw = np.clip(np.asarray(values, dtype=float), self.min, self.max)
        if self.options:
            options = np.array(sorted(v for v, _, _ in self.options))
            nearest = np.abs(raw[:, None] - options[None, :]).argmin(axis=1)
            return np.asarray(options[nearest], dtype=float)
        steps = np.round((raw - self.min) / self.step)
        snapped: np.ndarray = np.clip(self.min + steps * self.step, self.min, self.max)
        return np.round(snapped, max(self.decimals, 9))


def or_skip(allowed: str, scale: Scale, skip_label: str) -> str:
    """``allowed`` (what a worker may answer), and the skip box where the scale has one."""
    if not scale.skip:
        return allowed
    return _('{allowed}, or tick "{label}"').format(allowed=allowed, label=skip_label)


def numeric_scale(kind: StudyType, spec: ScaleSpec) -> Scale:
    """``min``..``max`` in ``step``s (0..1 where the spec leaves them out; checks report it)."""
    low = spec.min if spec.min is not None else 0.0
    high = spec.max if spec.max is not None else low + 1.0
    return Scale(kind, low, high, spec.step, spec.fractional, spec.decimals, (), spec.skip)


def fixed_scale(kind: StudyType, choices: Sequence[tuple[float, str]], skip: bool) -> Scale:
    """A scale of fixed ``choices`` (value, label), shown in the given order."""
    values = [v for v, _ in choices]
    options = tuple((v, label, None) for v, label in choices)
    return Scale(kind, min(values), max(values), 1.0, False, 0, options, skip)


@dataclass(frozen=True)
class Traits:
    """How one simulated worker answers from the truth, as plain numbers (`harness.simulate`
    draws them per archetype): personal ``bias`` (scale units; latent units for a comparison),
    ``noise`` sd as a share of the range, ``stretch`` away from (>1) or toward (<1) the
    midpoint, ``backwards`` (max + min - truth), the "equally similar" threshold, the sd
    of the noise with which the worker perceives one pair's similarity (pair comparison, a
    share of the latent range), and ``inset``: the share of the range at each end the worker
    never answers in (a centrist's "ends" are a quarter of the range in)."""

    bias: float
    noise: float
    stretch: float
    backwards: bool
    equal_threshold: float
    perception: float = 0.0
    inset: float = 0.0


class StudyTypeDefinition(ABC):
    """Everything that differs between study types; one subclass per type.

    Data: ``kind``; ``template`` (the built-in page template); ``sides`` (display columns an
    item shows; None: any number); ``gate_and_order`` (whether the scale may have a gate
    question and a reversed order); ``refused_controls`` (control key of `ControlsSpec` -> why
    this type has no such control; the others are allowed); ``alpha_level`` (Krippendorff's
    alpha level the screening impact table uses by default).
    """

    kind: StudyType
    template: str
    sides: int | None = None
    gate_and_order: bool = False
    refused_controls: Mapping[str, str] = MappingProxyType({})
    alpha_level: AlphaLevel = "ordinal"

    # spec: the scale

    @abstractmethod
    def check_scale(self, scale: ScaleSpec) -> list[ScaleProblem]:
        """Every problem with a spec's ``scale`` section for this type."""

    @abstractmethod
    def resolve_scale(self, scale: ScaleSpec) -> Scale:
        """The scale of a (structurally valid) spec; `check_scale` reports inconsistencies."""

    # render: pages and answer checks

    def accepts(self, scale: Scale, value: float) -> bool:
        """Whether a worker's answer ``value`` may be stored: a point of the scale."""
        return math.isfinite(value) and scale.accepts(value)

    def allowed_answers(self, scale: Scale, skip_label: str) -> str:
        """What a worker may answer, for an error message ("enter a number from 0 to 10 ..."),
        in the language in use."""
        low, high = format_number(scale.min), format_number(scale.max)
        if scale.options:
            allowed = _("choose one of the options")
        elif scale.fractional and scale.decimals == 1:
            allowed = _("enter a number from {min} to {max} with at most 1 decimal").format(
                min=low, max=high
            )
        elif scale.fractional and scale.decimals:
            allowed = _("enter a number from {min} to {max} with at most {n} decimals").format(
                min=low, max=high, n=scale.decimals
            )
        elif scale.fractional:
            allowed = _("enter a whole number from {min} to {max}").format(min=low, max=high)
        else:
            allowed = _("enter a number from {min} to {max} in steps of {step}").format(
                min=low, max=high, step=format_number(scale.step)
            )
        return or_skip(allowed, scale, skip_label)

    def item_label(self, sides: Sequence[str]) -> str:
        """An item as a worker's error message names it (its sides, cut to 60 characters)."""
        text = " – ".join(sides)
        return text if len(text) <= LABEL_WIDTH else text[: LABEL_WIDTH - 3] + "..."

    def example_answer(self, text: str, label: str | None) -> str:
        """A worked example's answer as the guidelines show it: the option's label and value."""
        return f"{label} ({text})" if label is not None else text

    # simulate: latent truths and how a simulated worker answers

    def latent_truths(self, items: pd.DataFrame, truths: pd.Series | None) -> pd.Series:
        """Latent truth per content item (``items`` indexed by ``item_id``): the given
        ``truths`` (for a reproduction, the original instrument's item means)."""
        if truths is None:
            raise ValueError("a rating or Likert study needs latent truths per item")
        missing = items.index.difference(truths.index)
        if len(missing):
            raise ValueError(f"no latent truth for {len(missing)} item(s), e.g. {missing[0]}")
        return truths.reindex(items.index).astype(float)

    def bias_units(self, scale: Scale) -> float:
        """What a bias drawn as a share of the range is a share of (the scale's range)."""
        return scale.range

    def random_answers(self, scale: Scale, rng: np.random.Generator, n: int) -> np.ndarray:
        """A spammer's ``n`` answers: uniform over the options, else over the range."""
        if scale.options:
            return rng.choice(np.array([v for v, _, _ in scale.options]), size=n)
        return scale.snap(rng.uniform(scale.min, scale.max, size=n))

    def constant_answers(
        self, constant: float, scale: Scale, rng: np.random.Generator, n: int
    ) -> np.ndarray:
        """A straight-liner's ``n`` answers: ``constant``, a few of them one step off."""
        slips = rng.random(n) < STRAIGHT_LINE_SLIP
        offsets = np.where(slips, rng.choice([-1.0, 1.0], size=n) * scale.step, 0.0)
        return scale.snap(constant + offsets)

    def truthful_answers(
        self,
        truths: np.ndarray,
        traits: Traits,
        scale: Scale,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Answers from latent ``truths`` (points on the scale): truth plus bias and noise,
        stretched about the midpoint, kept ``inset`` clear of the ends, snapped to the scale."""
        base = scale.max + scale.min - truths if traits.backwards else truths
        raw = base + traits.bias + rng.normal(0.0, traits.noise * scale.range, size=len(truths))
        raw = scale.midpoint + (raw - scale.midpoint) * traits.stretch
        if traits.inset:
            margin = traits.inset * scale.range
            raw = np.clip(raw, scale.min + margin, scale.max - margin)
        return scale.snap(raw)
