"""Task specs: one YAML file describes one instrument and its launch settings.

`load_spec` validates a spec (every problem at once, each with its line), resolves its items,
controls, guidelines and template, and computes the instrument hash.
"""

from harness.hosting import Hosting
from harness.spec.hashing import instrument_hash, short_hash
from harness.spec.load import LoadedSpec, load_spec, summary_counts
from harness.spec.model import Action, OrderPolicy, StudyType, TaskSpec
from harness.spec.scale import Scale, resolve_scale

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
