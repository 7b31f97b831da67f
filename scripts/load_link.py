"""The study-link crowd of scripts/load_test.py: simulated participants arriving by the study's
link, with nothing but harness's task server behind it.

Each participant is one thread with its own id and its own browser (`load_session.
TimedSession`), walking the flow of `harness.simulate.places_driver.PlacesWorkers.work`: the
entry ``/p/<study>?participant=<id>`` (answered 303 to the page of the place the allocator gave
them), the page, the submission with the page's token, the completion page. Then they come back
by the same link for another part at once (a closed loop), or at their slot of the offered
rate (`load_pace.Pacer`, an open loop), until the entry turns them away (no place left for
them, blocked by screening) or time is up.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np
from load_pace import Pacer
from load_session import TimedSession

from harness.providers.link.crowd import LinkDoor
from harness.simulate.answering import Answering, DriverReport
from harness.simulate.archetypes import Worker
from harness.simulate.places_driver import PlacesWorkers
from harness.spec.scale import Scale

GIVE_UP = 20
"""Failed attempts (a page or submission refused after the entry let them in) after which a
participant stops, as in the MTurk crowd."""


def link_participant(
    http: TimedSession,
    worker: Worker,
    door: LinkDoor,
    truths: Mapping[str, float],
    scale: Scale,
    seed: int,
    deadline: float,
    report: DriverReport,
    pacer: Pacer | None = None,
) -> None:
    """One participant doing parts of the study until the entry turns them away or time is up;
    with a ``pacer``, each part waits for its slot (a failed part is tried again at once)."""
    rng = np.random.default_rng([seed, 5])
    places = PlacesWorkers(door, [worker], truths, scale, http, seed=seed)
    answering = Answering(truths, scale)
    failed, retrying = 0, False
    while time.perf_counter() < deadline and failed < GIVE_UP:
        late = pacer.wait() if pacer is not None and not retrying else None
        done = places.work(worker, rng, report, answering)
        if http.refused is not None:
            return  # turned away at the entry: nothing left for them, or blocked
        if late is not None and pacer is not None:
            pacer.started(late)
        retrying = not done
        failed += retrying
