"""The answer scale a spec resolves to: the values a judgment may take, for every study type.

`Scale` is defined with the study types (`harness.spec.study_types.base`); each type resolves
its own scale: rating ``min``..``max`` in ``step``s (or any value with up to ``decimals`` places
when ``fractional``), Likert the options' values in the spec's order, pair comparison ``1``
(the first pair is more similar), ``-1`` (the second is) and ``0`` (equally similar).
"""

from __future__ import annotations

from harness.spec.model import ScaleSpec, StudyType
from harness.spec.study_types import Scale, definition


def resolve_scale(kind: StudyType, spec: ScaleSpec) -> Scale:
    """The scale of a (structurally valid) spec; `harness.spec.checks` reports inconsistencies."""
    return definition(kind).resolve_scale(spec)


__all__ = ["Scale", "resolve_scale"]
