"""How a simulated crowd reaches a study: the door each platform declares
(`Capabilities.crowd_door`, kept in the platform's folder) and what it is handed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from harness.simulate.answering import DriverReport
from harness.simulate.archetypes import Worker
from harness.spec.scale import Scale


@dataclass(frozen=True)
class Visit:
    """A simulated crowd at a study's door: who comes, the truths they answer from, the HTTP
    session they use, their seed, the country they say they are in, and ``keep_group``: each
    keeps to the group of units of their first submission (a study with arms); ``machine``: what
    model-assisted workers answer from (`harness.simulate.answering.Answering`)."""

    workers: Sequence[Worker]
    truths: Mapping[str, float]
    scale: Scale
    http: Any
    seed: int = 0
    country: str = "US"
    keep_group: bool = False
    machine: Mapping[str, float] | None = None


@runtime_checkable
class CrowdDoor(Protocol):
    """What a platform's ``crowd_door`` makes, from ``(endpoint, public_url, study)``: the way
    in for simulated participants."""

    def admit(self, visit: Visit, report: DriverReport) -> DriverReport:
        """Let the crowd do what they can of the study; what they did goes into ``report``."""
        ...
