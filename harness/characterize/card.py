"""The measurement procedure card (METHODS.md section 6): what the instrument is and how it ran.

Everything known of the instrument definition (from the frozen spec of a stored study, or what
a dataset's distribution says), then what the judgments themselves show: items, raters,
judgments per item, dates, controls left out, and the indication (how an item's value is
summarised: the mean of its values, skips not counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.characterize.instrument import Instrument
from harness.stats._table import valued

INDICATION = "mean of the item's values (skips are not values)"


@dataclass(frozen=True)
class ProcedureCard:
    """Label -> value rows, in reading order."""

    name: str
    rows: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.rows}


def procedure_card(instrument: Instrument) -> ProcedureCard:
    """The card of ``instrument``: its known definition, then counts from its judgments."""
    table = instrument.judgments
    values = valued(table)
    per_item = values.groupby("item_id").size()
    raters_per_item = values.groupby("item_id")["worker_id"].nunique()
    rows = {k: str(v) for k, v in instrument.known.items()}
    rows["items"] = f"{table['item_id'].nunique():,}"
    rows["raters"] = f"{table['worker_id'].nunique():,}"
    skipped = len(table) - len(values)
    rows["judgments"] = f"{len(table):,}" + (f" ({skipped:,} skipped)" if skipped else "")
    if len(per_item):
        rows["raters per item (distinct workers with a value)"] = _spread(raters_per_item)
        repeats = int((per_item - raters_per_item).sum())
        rows["judgments per item"] = _spread(per_item) + (
            f" ({repeats:,} repeat judgment(s) by a rater who judged the item again; the item's "
            "value is the mean of all its judgments)"
            if repeats
            else " (one per rater: repeated showings are controls, left out)"
        )
    if "dates" not in rows and "answered_at" in table.columns:
        stamps = pd.to_datetime(table["answered_at"], utc=True, errors="coerce").dropna()
        if len(stamps):
            rows["dates"] = f"{stamps.min():%Y-%m-%d %H:%M} to {stamps.max():%Y-%m-%d %H:%M} UTC"
    if instrument.controls_left_out:
        rows["control judgments left out"] = f"{instrument.controls_left_out:,}"
    rows["indication"] = INDICATION
    return ProcedureCard(name=instrument.name, rows=rows)


def _spread(counts: pd.Series) -> str:
    return f"min {counts.min()}, median {counts.median():g}, max {counts.max()}"
