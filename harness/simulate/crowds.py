"""Send a simulated crowd to a launched study on a local platform, through the door its
platform names (`Capabilities.crowd_door`, in the platform's folder: the local MTurk service's
worker side, the local Prolific service's participant side, the study link)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.platform.contract import Platform
from harness.platform.registry import load
from harness.simulate.answering import DriverReport
from harness.simulate.archetypes import Worker
from harness.simulate.door import CrowdDoor, Visit
from harness.spec.scale import Scale

if TYPE_CHECKING:
    import sqlalchemy as sa


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
    country: str = "US",
    on_submitted: Callable[[str], None] | None = None,
    keep_group: bool = False,
    machine: Mapping[str, float] | None = None,
) -> DriverReport:
    """Let ``workers`` do what they can of ``study`` and return what they did
    (``on_submitted`` is told each submission as it lands: a progress bar; ``country``: where
    they say they are; ``keep_group``: a study with arms, each worker keeps to the group of
    units of their first one; ``machine``: what model-assisted workers answer)."""
    report = DriverReport(on_submitted=on_submitted)
    door = platform.capabilities.crowd_door
    if door is None:
        raise ValueError(f"platform {platform.name!r} names no door for a simulated crowd")
    entrance: CrowdDoor = load(door)(endpoint, public_url, study)
    visit = Visit(workers, truths, scale, http, seed, country, keep_group, machine)
    return entrance.admit(visit, report)


def simulate_study(
    engine: sa.Engine,
    study: str,
    mix: Mapping[str, float],
    *,
    size: int,
    seed: int = 0,
    country: str = "US",
    endpoint_url: str | None = None,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> DriverReport:
    """Let a crowd of ``size`` simulated workers (archetypes in the shares of ``mix``) do the
    stored ``study`` on its local platform (``endpoint_url``: its service, default the
    study's); ``progress(total)`` returns the callback told of each submission."""
    import requests

    from harness.errors import InputError
    from harness.platform.registry import platform_named
    from harness.render.instrument import stored_instrument
    from harness.simulate import Crowd
    from harness.simulate.truths import latent_truths
    from harness.store import frozen_instrument, launched_study, session_scope
    from harness.store.arm_assignment import study_arms
    from harness.store.models import StudyStatus
    from harness.store.studies import open_assignments

    with session_scope(engine) as session:
        running = launched_study(session, study)
        platform = platform_named(running.platform.provider)
        if not platform.is_local(running.target):
            raise InputError(
                f"study {study!r} runs on {running.target}: simulated workers "
                "only work on a local service"
            )
        if running.study.status is StudyStatus.PAUSED:
            raise InputError(
                f"study {study!r} is paused: nobody new can start it, so no simulated worker "
                f"would; `harness resume {study}` first"
            )
        endpoint = platform.endpoint(running.target, endpoint_url or running.platform.endpoint_url)
        frozen = frozen_instrument(session, running.study.instrument_id)
        open_work = open_assignments(session, running.study)
        arms = bool(study_arms(session, running.id))
    instrument = stored_instrument(frozen)
    truths = latent_truths(instrument.items, instrument.scale, seed)
    machine = _machine(truths, instrument.scale) if mix.get("model_assisted", 0) > 0 else None
    workers = Crowd(dict(mix), size=size, seed=seed).workers(instrument.scale)
    advance = progress(open_work) if progress is not None else None
    with requests.Session() as http:
        report = run_crowd(
            platform,
            endpoint,
            running.platform.public_url or "",
            study,
            workers,
            truths,
            instrument.scale,
            http,
            seed=seed,
            country=country,
            on_submitted=None if advance is None else lambda _assignment: advance(1),
            keep_group=arms,
            machine=machine,
        )
    if advance is not None:
        advance(max(0, open_work - len(report.submitted)))  # what nobody took: close the bar
    return report


MACHINE_SYSTEM = "minilm"  # the bundled system simulated model-assisted workers answer


def _machine(truths: Mapping[str, float], scale: Scale) -> dict[str, float]:
    """What model-assisted workers answer on a stored study: the bundled MiniLM system's WS353
    predictions rescaled (`harness.simulate.machine`); other items have no bundled system."""
    import pandas as pd

    from harness.datasets import load_ws353
    from harness.datasets.systems import read_system_refs
    from harness.errors import InputError
    from harness.simulate.machine import machine_answers

    systems, _ = read_system_refs(["ws353"], lambda: load_ws353().items)
    try:
        rescaled = machine_answers(systems[MACHINE_SYSTEM], pd.Series(truths), scale)
    except ValueError:
        raise InputError(
            "model_assisted workers answer a system's predictions, and harness bundles them "
            "only for WS353's items; this study has too few of them"
        ) from None
    return {str(k): float(v) for k, v in rescaled.items()}
