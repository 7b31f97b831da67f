"""The answer scale a spec resolves to: the values a judgment may take, for every study type.

Rating: ``min``..``max`` in ``step``s, or any value with up to ``decimals`` places when
``fractional``. Likert: the options' values, shown in the spec's order. Pair comparison: ``1``
(the first pair is more similar), ``-1`` (the second is) and ``0`` (equally similar).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.spec.model import ScaleSpec, StudyType

PAIR_CHOICES: tuple[tuple[float, str], ...] = (
    (1.0, "The words of the first pair are more similar to each other"),
    (-1.0, "The words of the second pair are more similar to each other"),
    (0.0, "They are equally similar"),
)


@dataclass(frozen=True)
class Scale:
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


def resolve_scale(kind: StudyType, spec: ScaleSpec) -> Scale:
    """The scale of a (structurally valid) spec; `harness.spec.checks` reports inconsistencies."""
    if kind is StudyType.PAIR_COMPARISON:
        options = tuple((v, label, None) for v, label in PAIR_CHOICES)
        return Scale(kind, -1.0, 1.0, 1.0, False, 0, options, spec.skip)
    if kind is StudyType.LIKERT and spec.options:
        listed = tuple((o.value, o.label, o.color) for o in spec.options)
        ordered = listed[::-1] if spec.order == "reversed" else listed
        values = [v for v, _, _ in listed]
        steps = sorted(values)
        step = min((b - a for a, b in zip(steps, steps[1:], strict=False)), default=1.0)
        return Scale(kind, min(values), max(values), step, False, 0, ordered, spec.skip)
    low = spec.min if spec.min is not None else 0.0
    high = spec.max if spec.max is not None else low + 1.0
    return Scale(kind, low, high, spec.step, spec.fractional, spec.decimals, (), spec.skip)
