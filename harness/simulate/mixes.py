"""Named crowd mixes: the ones screening's defaults are checked on (docs/screening.md).

Each has 5% sloppy workers (neither a screening target nor careful) and 20%, 30% or 40% bad
workers (spammers, straight-liners, backwards), the rest careful.
"""

from __future__ import annotations

SCREENING_MIXES: dict[str, dict[str, float]] = {
    "20% bad": {
        "careful": 0.75,
        "sloppy": 0.05,
        "spammer": 0.1,
        "straight_liner": 0.05,
        "backwards": 0.05,
    },
    "30% bad": {
        "careful": 0.65,
        "sloppy": 0.05,
        "spammer": 0.1,
        "straight_liner": 0.1,
        "backwards": 0.1,
    },
    "40% bad": {
        "careful": 0.55,
        "sloppy": 0.05,
        "spammer": 0.15,
        "straight_liner": 0.15,
        "backwards": 0.1,
    },
}
