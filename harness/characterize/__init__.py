"""Characterize an instrument (METHODS.md section 6): one module per property.

Pure functions from long judgment tables (`harness.judgments`) to dataclasses of figures:
`card` (measurement procedure card), `repeatability`, `precision`, `rank_stability`,
`reproducibility`, `resolution`, `systems`; `instrument` turns a CSV, a dataset or a stored
study's rows into an `Instrument`; `characterization` runs them all.
"""

from harness.characterize.card import ProcedureCard, procedure_card
from harness.characterize.characterization import (
    Characterization,
    InstrumentFigures,
    Screened,
    characterize,
)
from harness.characterize.instrument import (
    Instrument,
    instrument_from_csv,
    instrument_from_study,
    instrument_from_table,
    instrument_from_ws353,
)
from harness.characterize.precision import Precision, precision
from harness.characterize.rank_stability import (
    RankStability,
    rank_stability_resolution,
    rank_stability_se,
)
from harness.characterize.repeatability import Repeatability, repeatability
from harness.characterize.reproducibility import (
    MIN_SHARED_ITEMS,
    Reproducibility,
    reproducibility,
)
from harness.characterize.resolution import Resolution, pair_decisions, resolution
from harness.characterize.systems import Systems, instrument_systems, systems

__all__ = [
    "MIN_SHARED_ITEMS",
    "Characterization",
    "Instrument",
    "InstrumentFigures",
    "Precision",
    "ProcedureCard",
    "RankStability",
    "Repeatability",
    "Reproducibility",
    "Resolution",
    "Screened",
    "Systems",
    "characterize",
    "instrument_from_csv",
    "instrument_from_study",
    "instrument_from_table",
    "instrument_from_ws353",
    "instrument_systems",
    "pair_decisions",
    "precision",
    "procedure_card",
    "rank_stability_resolution",
    "rank_stability_se",
    "repeatability",
    "reproducibility",
    "resolution",
    "systems",
]
