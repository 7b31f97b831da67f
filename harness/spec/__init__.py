"""Task specs: one YAML file describes one instrument and its launch settings.

`load_spec` validates a spec (every problem at once, each with its line), resolves its items,
controls, guidelines and template, and computes the instrument hash.

Its names are loaded on first use, so that importing one of its modules does not import
them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.hosting import Hosting
    from harness.spec.hashing import instrument_hash, short_hash
    from harness.spec.load import LoadedSpec, load_spec, summary_counts
    from harness.spec.model import Action, OrderPolicy, StudyType, TaskSpec
    from harness.spec.scale import Scale, resolve_scale

_HOMES = {
    "Hosting": "harness.hosting",
    "instrument_hash": "harness.spec.hashing",
    "short_hash": "harness.spec.hashing",
    "LoadedSpec": "harness.spec.load",
    "load_spec": "harness.spec.load",
    "summary_counts": "harness.spec.load",
    "Action": "harness.spec.model",
    "OrderPolicy": "harness.spec.model",
    "StudyType": "harness.spec.model",
    "TaskSpec": "harness.spec.model",
    "Scale": "harness.spec.scale",
    "resolve_scale": "harness.spec.scale",
}

__all__ = [
    "Action",
    "Hosting",
    "LoadedSpec",
    "OrderPolicy",
    "Scale",
    "StudyType",
    "TaskSpec",
    "instrument_hash",
    "load_spec",
    "resolve_scale",
    "short_hash",
    "summary_counts",
]


__getattr__ = lazy_names(__name__, _HOMES)
