"""Likert: ordered categories with labels (and optional colours), shown as listed or reversed,
optionally after a gate question; an item shows any number of sides (docs/methods.md section 2.2).
Binary similar / not similar is a Likert scale of two."""

from __future__ import annotations

from types import MappingProxyType

from harness.spec.model import ScaleSpec, StudyType
from harness.spec.study_types.base import (
    IDENTICAL_IS_FOR_RATING,
    Scale,
    ScaleProblem,
    StudyTypeDefinition,
    numeric_scale,
)


class Likert(StudyTypeDefinition):
    kind = StudyType.LIKERT
    template = "likert.html"
    gate_and_order = True
    refused_controls = MappingProxyType({"identical": IDENTICAL_IS_FOR_RATING})

    def check_scale(self, scale: ScaleSpec) -> list[ScaleProblem]:
        problems: list[ScaleProblem] = []
        if not scale.options or len(scale.options) < 2:
            problems.append(((), "a likert scale needs at least two options"))
        elif len({o.value for o in scale.options}) != len(scale.options):
            problems.append((("options",), "option values must be distinct"))
        if scale.min is not None or scale.max is not None:
            problems.append(
                ((), "a likert scale takes its range from its options; remove min and max")
            )
        return problems

    def resolve_scale(self, scale: ScaleSpec) -> Scale:
        """The options' values, shown in the spec's order; ``step`` is their smallest gap."""
        if not scale.options:  # only in a spec that check_scale refuses
            return numeric_scale(self.kind, scale)
        listed = tuple((o.value, o.label, o.color) for o in scale.options)
        ordered = listed[::-1] if scale.order == "reversed" else listed
        values = [v for v, _, _ in listed]
        steps = sorted(values)
        step = min((b - a for a, b in zip(steps, steps[1:], strict=False)), default=1.0)
        return Scale(self.kind, min(values), max(values), step, False, 0, ordered, scale.skip)


LIKERT = Likert()
