"""The instrument hash: a content hash of the measurement procedure, and of nothing else.

Covered (docs/methods.md section 1): the items (every column of the resolved item table,
controls included, in item-id order, and which columns are shown in which order), the
guidelines text and worked examples, the consent and debrief texts (when the spec has them:
a spec without them hashes as before they existed), the study type and scale, the page
template's name and the content of every template file it uses (and, for pages in another
language than English, its translation catalog), the order policy, the controls, the
qualifications, the raters per item (with adaptive collection's settings, when set) and the
screening policy.

Not covered: the study name and description, items per HIT, hosting mode, HIT title,
description, keywords, reward, durations, budget and platform target. Changing any covered
part makes a new instrument; changing only uncovered parts keeps the hash.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from harness.spec.items import Row
from harness.spec.model import TaskSpec

HASH_VERSION = 1  # bump when what the hash covers changes


def instrument_hash(
    spec: TaskSpec,
    items: list[Row],
    columns: list[str],
    display: list[str],
    guidelines: str,
    template_files: dict[str, str],
) -> str:
    """Hex SHA-256 of the canonical JSON of the measurement procedure (see module docstring).

    ``items`` are the item table's rows (a column a row lacks counts as empty), ``columns``
    its columns; ``template_files`` maps each template file name the page uses to its text.
    """
    procedure = {
        "hash_version": HASH_VERSION,
        "type": spec.type.value,
        "items": _items_records(items, columns),
        "display": list(display),
        "guidelines": guidelines,
        "examples": [e.model_dump(mode="json") for e in spec.guidelines.examples],
        "scale": spec.scale.model_dump(mode="json"),
        "template": {name: _sha(text) for name, text in sorted(template_files.items())},
        "order": spec.order.model_dump(mode="json"),
        "controls": spec.controls.model_dump(mode="json"),
        "qualifications": spec.qualifications.model_dump(mode="json"),
        "raters_per_item": spec.raters_per_item,
        "screening": {
            k: v.model_dump(mode="json", exclude=None if v.references else {"references"})
            for k, v in sorted(spec.screening.items())
        },
    }
    if spec.adaptive is not None:  # how many raters an item gets: part of the procedure
        procedure["adaptive"] = spec.adaptive.model_dump(mode="json")
    for part in ("consent", "debrief"):
        text = getattr(spec, part)
        if text is not None:
            procedure[part] = text
    return _sha(json.dumps(procedure, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def short_hash(full: str) -> str:
    """The first 12 hex digits, for people (the store keeps the whole hash)."""
    return full[:12]


def _items_records(items: list[Row], columns: list[str]) -> list[dict[str, Any]]:
    ordered = sorted(items, key=lambda row: row["item_id"])  # stable, as a table's sort was
    return [{c: _plain(row.get(c)) for c in sorted(columns)} for row in ordered]


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else repr(value)
    if hasattr(value, "item"):  # numpy scalar
        return _plain(value.item())
    return value


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
