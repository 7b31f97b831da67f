"""The machine references a spec's ``machine_agreement`` policy names, read into scores.

``references: [ws353]`` names the systems bundled with harness (`harness.datasets.systems`);
any other entry is a system file (``item_id, score``, or WS353's row-and-words layout), a
folder of them, or ``NAME=FILE``, relative to the spec's folder. The store freezes them as
absolute paths (`resolved`), so a stored study reads the files the spec named wherever it is
screened.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness.spec.heuristics import HeuristicKey, resolve_heuristic
from harness.spec.model import HeuristicPolicy

if TYPE_CHECKING:  # a spec without references is read without the table library
    import pandas as pd

BUNDLED_SYSTEMS = "ws353"
"""`harness.datasets.ws353_systems.BUNDLED_SYSTEMS`, spelled out so that reading a spec
imports no table library (a test keeps the two equal)."""


def machine_references(
    screening: Mapping[str, HeuristicPolicy], base: Path | None = None
) -> dict[str, pd.Series]:
    """System name -> item_id -> score, for every reference of the machine_agreement policy.

    Raises `harness.errors.DatasetError` naming the file that cannot be read.
    """
    refs: list[str] = []
    for name, policy in screening.items():
        try:
            key = resolve_heuristic(name).key
        except KeyError:
            continue
        if key is HeuristicKey.MACHINE_AGREEMENT:
            refs += resolved(policy.references, base)
    if not refs:
        return {}
    from harness.datasets import load_ws353
    from harness.datasets.systems import read_system_refs

    scores, _ = read_system_refs(refs, lambda: load_ws353().items, option="references")
    return scores


def resolved(refs: list[str], base: Path | None) -> list[str]:
    """``refs`` with their files relative to ``base`` made absolute (``ws353`` kept)."""
    if base is None:
        return list(refs)
    out = []
    for ref in refs:
        name, sep, file = ref.partition("=")
        if ref == BUNDLED_SYSTEMS:
            out.append(ref)
        elif sep and name:
            out.append(f"{name}={(base / file).resolve()}")
        else:
            out.append(str((base / ref).resolve()))
    return out
