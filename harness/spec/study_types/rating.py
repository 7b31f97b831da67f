"""Rating (the WS353 kind): a number from ``min`` to ``max`` in ``step``s, or with up to
``decimals`` places when ``fractional``; an item shows two sides (docs/methods.md section 2.1)."""

from __future__ import annotations

from harness.spec.model import ScaleSpec, StudyType
from harness.spec.study_types.base import (
    Scale,
    ScaleProblem,
    StudyTypeDefinition,
    numeric_scale,
)


class Rating(StudyTypeDefinition):
    kind = StudyType.RATING
    template = "rating.html"
    sides = 2
    alpha_level = "interval"

    def check_scale(self, scale: ScaleSpec) -> list[ScaleProblem]:
        problems: list[ScaleProblem] = []
        if scale.min is None or scale.max is None:
            problems.append(((), "a rating scale needs min and max"))
        elif scale.min >= scale.max:
            problems.append((("min",), f"min ({scale.min:g}) must be below max ({scale.max:g})"))
        elif scale.step > scale.max - scale.min:
            problems.append((("step",), "step is larger than the scale's range"))
        if scale.options:
            problems.append(
                (
                    ("options",),
                    "options are for likert studies; a rating scale uses min, max and step",
                )
            )
        if scale.min is not None and scale.max is not None:
            for anchor in scale.labels:
                if not scale.min <= anchor <= scale.max:
                    problems.append((("labels",), f"label at {anchor:g} is off the scale"))
        return problems

    def resolve_scale(self, scale: ScaleSpec) -> Scale:
        return numeric_scale(self.kind, scale)


RATING = Rating()
