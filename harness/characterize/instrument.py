"""What characterization works on: one instrument's judgments and what is known of it.

An `Instrument` comes from a long judgments CSV, a published dataset (WS353) or a stored study
(the command reads the store and passes plain data here, so this stage never opens a database).
Only content items are characterized: judgments whose ``role`` is a control (identical pairs,
repeated showings, random pairs) are left out and counted (METHODS.md section 3).
``known`` is the procedure card's raw material, label -> value, in the order to show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from harness.datasets.ws353 import FILES as WS353_FILES
from harness.datasets.ws353 import PAPER_RATERS, SET2_RATERS, WS353
from harness.datasets.ws353 import VERSION as WS353_VERSION
from harness.judgments import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, read_judgments
from harness.money import money
from harness.roles import ItemRole
from harness.stats.reliability import DEFAULT_ALPHA_MIN, study_alpha_min

CONTENT_ROLES = frozenset({ItemRole.ITEM.value, ItemRole.GOLD.value, ItemRole.CONTROL_GROUP.value})
_NOT_DISPLAY = {*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, "true_archetype", "display"}


@dataclass(frozen=True)
class Instrument:
    """One instrument's content judgments, its items' display columns and what is known of it."""

    name: str
    kind: str  # "study", "csv" or "dataset"
    judgments: pd.DataFrame
    items: pd.DataFrame  # item_id and display columns (e.g. word1, word2), one row per item
    known: dict[str, Any] = field(default_factory=dict)
    scale_range: tuple[float, float] | None = None
    controls_left_out: int = 0
    given: pd.DataFrame | None = None  # the table as read, controls included (for screening)
    alpha_min: float = DEFAULT_ALPHA_MIN  # smallest acceptable alpha: a study's spec, else 0.667

    def label(self, item: str) -> str:
        """An item named for a reader: its display columns when known, else its id."""
        display = [c for c in self.items.columns if c != "item_id"][:2]
        if not display:
            return item
        row = self.items.loc[self.items["item_id"] == item, display]
        if row.empty:
            return item
        return " / ".join(str(v) for v in row.iloc[0]) + f" ({item})"


def instrument_from_table(
    judgments: pd.DataFrame,
    *,
    name: str,
    kind: str,
    known: dict[str, Any] | None = None,
    scale_range: tuple[float, float] | None = None,
    alpha_min: float = DEFAULT_ALPHA_MIN,
) -> Instrument:
    """An `Instrument` from a long table: controls left out, display columns gathered per item."""
    table = judgments
    left_out = 0
    if "role" in table.columns:
        content = table["role"].fillna(ItemRole.ITEM.value).isin(CONTENT_ROLES)
        left_out = int((~content).sum())
        table = table.loc[content]
    table = table.reset_index(drop=True)
    display = [c for c in table.columns if c not in _NOT_DISPLAY]
    items = table[["item_id", *display]].drop_duplicates("item_id").reset_index(drop=True)
    return Instrument(
        name=name,
        kind=kind,
        judgments=table,
        items=items,
        known=dict(known or {}),
        scale_range=scale_range,
        controls_left_out=left_out,
        given=judgments,
        alpha_min=alpha_min,
    )


def instrument_from_csv(path: str | Path, *, name: str | None = None) -> Instrument:
    """An `Instrument` from a long judgments CSV (read and validated by `read_judgments`)."""
    path = Path(path)
    table = read_judgments(path)
    return instrument_from_table(
        table,
        name=name or path.stem,
        kind="csv",
        known={"source": f"long judgments CSV {path.name} (SHA-256 {_digest([path])})"},
    )


def instrument_from_ws353(dataset: WS353, raters: int = PAPER_RATERS) -> Instrument:
    """The original WS353 instrument, with what its distribution and paper say about it.

    ``raters`` 13 (the default) is the instrument the WS353 study characterized (raters 1-13,
    every one on all 353 pairs); 16 is the whole distribution (raters 14-16 scored set2 only).
    """
    known = {
        "source": _ws353_source(dataset),
        "reference": "Finkelstein et al., Placing Search in Context: The Concept Revisited, "
        "ACM TOIS 20(1), 2002",
        "study type": "rating",
        "scale": "0 (totally unrelated) to 10 (very closely related), fractional values allowed",
        "raters": "13: raters 1-13, each on all 353 pairs (the instrument the WS353 study "
        "characterized; the distribution's raters 14-16, who scored set2 only, are left out: "
        "--original ws353-16 keeps them)"
        if raters == PAPER_RATERS
        else f"{raters}: raters 1-13 rated all 353 pairs, raters 14-{raters} only set2's 200 "
        "pairs (the whole distribution)"
        if raters == SET2_RATERS
        else f"{raters}: raters 1-{raters}",
        "guidelines": _first_line(dataset.instructions),
        "order, pay, qualifications, dates": "not published",
        "screening policy": "none known",
    }
    name = "WS353" if raters == PAPER_RATERS else f"WS353 ({raters} raters)"
    return instrument_from_table(
        dataset.rater_table(raters),
        name=name,
        kind="dataset",
        known=known,
        scale_range=(0.0, 10.0),
    )


def _ws353_source(dataset: WS353) -> str:
    """The distribution named by dataset and version, never by where it lies on this machine
    (a report is shared): the bundled copy, or a copy of the researcher's own by its files'
    digest."""
    if dataset.bundled:
        return (
            f"WordSimilarity-353 version {WS353_VERSION}, the authors' distribution bundled "
            "with harness"
        )
    files = [dataset.directory / name for name in WS353_FILES]
    return f"WordSimilarity-353, a copy of its distribution (files' SHA-256 {_digest(files)})"


def _dates(first: str | None, last: str | None) -> str | None:
    """When a stored study ran, as its platform recorded it: from the first assignment
    accepted to the last submitted (the answers' own times are the page's, or a simulated
    crowd's made-up pace)."""
    if first is None or last is None:
        return None
    start, end = (_utc(pd.Timestamp(t)) for t in (first, last))
    return f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} UTC (first accepted to last submitted)"


def _utc(when: pd.Timestamp) -> pd.Timestamp:
    return when.tz_localize("UTC") if when.tzinfo is None else when.tz_convert("UTC")


def _digest(paths: list[Path]) -> str:
    """The first 12 hex digits of the SHA-256 of ``paths``' bytes, in order."""
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def instrument_from_study(
    study: dict[str, Any], instrument: dict[str, Any], judgments: pd.DataFrame
) -> Instrument:
    """An `Instrument` from a stored study: ``study`` and ``instrument`` are its rows as dicts.

    ``instrument["spec"]`` is the frozen task spec (`harness.spec.model.TaskSpec` as JSON).
    """
    spec = instrument.get("spec") or {}
    scale = spec.get("scale") or {}
    hit = spec.get("hit") or {}
    currency = str(study.get("currency") or "USD")  # a study stored before: US dollars
    reward, budget = hit.get("reward"), study.get("budget")
    known: dict[str, Any] = {
        "source": f"stored study {study.get('name')} (target {study.get('target')}, "
        f"status {study.get('status')})",
        "instrument hash": instrument.get("hash"),
        "study type": instrument.get("study_type"),
        "scale": _scale_text(scale),
        "items": _items_text(spec.get("items") or {}),
        "guidelines": _first_line(str(instrument.get("guidelines") or "")),
        "raters per item (planned in the spec)": spec.get("raters_per_item"),
        "items per HIT": spec.get("items_per_hit"),
        "order policy": _mapping_text(spec.get("order") or {}),
        "controls": _mapping_text({k: v for k, v in (spec.get("controls") or {}).items() if v}),
        "qualifications": _mapping_text(
            {k: v for k, v in (spec.get("qualifications") or {}).items() if v not in (None, [])}
        ),
        "pay": None if reward is None else f"{money(Decimal(str(reward)), currency)} per HIT",
        "budget": None if budget is None else money(Decimal(str(budget)), currency, 2),
        "dates": _dates(study.get("first_accepted"), study.get("last_submitted")),
        "screening policy": _mapping_text(
            {k: (v or {}).get("action") for k, v in (spec.get("screening") or {}).items()}
        )
        or "none declared",
    }
    low, high = scale.get("min"), scale.get("max")
    scale_range = (float(low), float(high)) if low is not None and high is not None else None
    return instrument_from_table(
        judgments,
        name=str(study.get("name")),
        kind="study",
        known={k: v for k, v in known.items() if v not in (None, "")},
        scale_range=scale_range,
        alpha_min=study_alpha_min(study.get("alpha_min"), spec),
    )


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "not given"
    first = lines[0]
    return (first[:160] + "...") if len(first) > 160 else first + f" ({len(text):,} characters)"


def _scale_text(scale: dict[str, Any]) -> str:
    if scale.get("options"):
        return ", ".join(f"{o['value']:g} ({o['label']})" for o in scale["options"])
    if scale.get("min") is None:
        return "pair comparison: first more similar (1), second (-1), equal (0)"
    labels = scale.get("labels") or {}
    named = ", ".join(f"{k}: {v}" for k, v in labels.items())
    return f"{scale['min']:g} to {scale['max']:g}" + (f" ({named})" if named else "")


def _items_text(items: dict[str, Any]) -> str:
    if items.get("generate"):
        return f"generated by {items['generate']} (n = {items.get('n')}, seed {items.get('seed')})"
    if items.get("dataset"):
        return f"dataset {items['dataset']}"
    return f"CSV {items.get('csv')}"


def _mapping_text(mapping: dict[str, Any]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in mapping.items())
