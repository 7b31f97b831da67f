"""Study types (docs/methods.md section 2): one module per type, and the registry every stage asks.

Adding a study type: one module here (a `StudyTypeDefinition`), its page template in
``templates/``, its member in `harness.spec.model.StudyType`, one line in `REGISTRY`, and its
tests. See docs/architecture.md, "How to add a study type".
"""

from harness.spec.model import StudyType
from harness.spec.study_types.base import (
    AlphaLevel,
    Scale,
    ScaleProblem,
    StudyTypeDefinition,
    Traits,
)
from harness.spec.study_types.likert import LIKERT
from harness.spec.study_types.pair_comparison import PAIR_COMPARISON
from harness.spec.study_types.rating import RATING

REGISTRY: dict[StudyType, StudyTypeDefinition] = {
    StudyType.RATING: RATING,
    StudyType.LIKERT: LIKERT,
    StudyType.PAIR_COMPARISON: PAIR_COMPARISON,
}
"""`StudyType` -> its definition; one line per type."""


def definition(kind: StudyType) -> StudyTypeDefinition:
    """The definition of study type ``kind`` (KeyError for a type nobody registered)."""
    return REGISTRY[kind]


__all__ = [
    "REGISTRY",
    "AlphaLevel",
    "Scale",
    "ScaleProblem",
    "StudyTypeDefinition",
    "Traits",
    "definition",
]
