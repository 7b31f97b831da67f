"""Send a simulated crowd to a launched study on a local platform, through the door its
platform names: the local MTurk service's worker side (HITs), or a places platform's entry
(`Capabilities.crowd_door`: the local Prolific service, the study link)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.platform.contract import Platform
from harness.platform.registry import load
from harness.simulate.archetypes import Worker
from harness.simulate.driver import DriverReport, SimulatedWorkers
from harness.spec.scale import Scale

WORKER_PROFILE = {"country": "US", "numberApproved": 5000, "percentApproved": 99}
"""What simulated MTurk workers tell the worker side (they meet the shipped specs' needs)."""


def run_crowd(
    platform: Platform,
    endpoint: str | None,
    public_url: str,
    study: str,
    workers: Sequence[Worker],
    truths: Mapping[str, float],
    scale: Scale,
    http: Any,
    *,
    seed: int = 0,
    profile: Mapping[str, Any] | None = None,
    on_submitted: Callable[[str], None] | None = None,
    keep_group: bool = False,
) -> DriverReport:
    """Let ``workers`` do what they can of ``study`` and return what they did
    (``on_submitted`` is told each submission as it lands: a progress bar; ``keep_group``: a
    study with arms on MTurk, each worker keeps to the HIT group of their first HIT)."""
    report = DriverReport(on_submitted=on_submitted)
    door = platform.capabilities.crowd_door
    if door is not None:
        from harness.simulate.places_driver import PlacesWorkers

        entrance = load(door)(endpoint, public_url, study)
        return PlacesWorkers(entrance, workers, truths, scale, http, seed=seed).run(report=report)
    if endpoint is None:
        raise ValueError(f"platform {platform.name!r} names no local service for a crowd")
    return SimulatedWorkers(
        endpoint, workers, truths, scale, http, seed=seed, profile=profile or WORKER_PROFILE,
        keep_group=keep_group,
    ).run(report=report)
