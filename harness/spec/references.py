"""The machine references a spec's ``machine_agreement`` policy names, read into scores.

``references: [ws353]`` names the systems bundled with harness (`harness.datasets.systems`);
any other entry is a system file (``item_id, score``, or WS353's row-and-words layout), a
folder of them, or ``NAME=FILE``, relative to the spec's folder. A stored study's frozen spec
is read again relative to the working directory, so a live study names its files absolutely
(or uses ``ws353``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from harness.datasets import load_ws353
from harness.datasets.systems import read_system_refs
from harness.datasets.ws353_systems import BUNDLED_SYSTEMS
from harness.spec.heuristics import HeuristicKey, resolve_heuristic
from harness.spec.model import HeuristicPolicy


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
            refs += [_relative(ref, base) for ref in policy.references]
    if not refs:
        return {}
    scores, _ = read_system_refs(refs, lambda: load_ws353().items, option="references")
    return scores


def _relative(ref: str, base: Path | None) -> str:
    if ref == BUNDLED_SYSTEMS or base is None:
        return ref
    name, sep, file = ref.partition("=")
    if sep and name:
        return f"{name}={base / file}"
    return str(base / ref)
