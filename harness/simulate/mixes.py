"""Named crowd mixes: the ones screening's defaults are checked on (docs/screening.md).

`SCREENING_MIXES` each have 5% sloppy workers (neither a screening target nor careful) and 20%,
30% or 40% bad workers (spammers, straight-liners, backwards), the rest careful;
`MACHINE_MIXES` have machine workers instead.
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

MACHINE_MIXES: dict[str, dict[str, float]] = {
    "10% machine": {"careful": 0.85, "sloppy": 0.05, "model_assisted": 0.07, "bot": 0.03},
    "30% machine": {"careful": 0.65, "sloppy": 0.05, "model_assisted": 0.2, "bot": 0.1},
}
"""Crowds with machine workers (docs/screening.md, "Machine-made answers"): 5% sloppy, 10% or
30% machine workers (about two model-assisted workers to each bot), the rest careful."""
