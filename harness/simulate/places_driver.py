"""Simulated participants on a platform with places (Prolific, a study link), over HTTP.

Each participant is an HTTP agent that arrives the way people do: through the local Prolific
service (list the studies they may take, join one, follow the study URL with the three ids) or
through the study link (``/p/<study>?participant=...``). The task server allocates them a slot
and redirects them to its page; they answer every item shown with their archetype's response
model, submit to the task server, and follow where it sends them: Prolific's completion URL
with the code (the local service then marks the submission awaiting review) or the link's
completion page. Each platform names its door (`Capabilities.crowd_door`), kept in its own folder.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import numpy as np

from harness.simulate.answering import Answering, DriverReport, posted_fields, shown_keys
from harness.simulate.archetypes import Worker
from harness.simulate.door import Visit
from harness.spec.scale import Scale
from harness.web.tokens import token_in_page

_PARTICIPANT = re.compile(r"[^A-Za-z0-9]")


class Door(ABC):
    """How a simulated participant reaches a study's entry page (a `CrowdDoor`: the crowd
    comes in as `PlacesWorkers`)."""

    @abstractmethod
    def entry(self, http: Any, participant: str) -> str | None:
        """The entry URL to open (None: nothing to take)."""

    @abstractmethod
    def finish(self, http: Any, participant: str, next_url: str) -> bool:
        """Follow the completion URL the task server gave; False when it refused."""

    def admit(self, visit: Visit, report: DriverReport) -> DriverReport:
        """Participants arrive through this door until nobody gets a task."""
        return PlacesWorkers(
            self,
            visit.workers,
            visit.truths,
            visit.scale,
            visit.http,
            seed=visit.seed,
            machine=visit.machine,
        ).run(report=report)


def participant_id(worker_id: str) -> str:
    """A Prolific-shaped id for a simulated worker (24 characters, letters and digits)."""
    return ("5f" + _PARTICIPANT.sub("", worker_id)).ljust(24, "0")[:24]


@dataclass
class PlacesWorkers:
    door: Door
    workers: Sequence[Worker]
    truths: Mapping[str, float]
    scale: Scale
    http: Any
    seed: int = 0
    machine: Mapping[str, float] | None = None  # what model-assisted workers answer from

    def run(self, rounds: int | None = None, report: DriverReport | None = None) -> DriverReport:
        """Participants take turns, one task each per round, until nobody gets one; what they
        did goes into ``report`` (a new one by default)."""
        report = report or DriverReport()
        rng = np.random.default_rng([self.seed, 5])
        answering = Answering(self.truths, self.scale, machine=self.machine)
        done = 0
        while rounds is None or done < rounds:
            took = sum(self.work(w, rng, report, answering) for w in self.workers)
            done += 1
            if took == 0:
                break
        return report

    def work(
        self,
        worker: Worker,
        rng: np.random.Generator,
        report: DriverReport,
        answering: Answering,
    ) -> bool:
        """Arrive, answer the allocated task, submit, complete; False if nothing was done."""
        pid = participant_id(worker.worker_id)
        entry = self.door.entry(self.http, pid)
        if entry is None:
            return False
        arrived = self.http.get(entry, allow_redirects=False)
        if arrived.status_code != 303:
            return False  # refused: full, blocked, or done
        page_url = urljoin(entry, arrived.headers["Location"])
        page = self.http.get(page_url)
        if page.status_code != 200:
            report.refused.append(f"page {page_url}: {page.status_code}")
            return False
        ref = page_url.rstrip("/").rsplit("/", 1)[1]
        fields = posted_fields(page.text, answering.answers(worker, shown_keys(page.text), rng))
        stored = self.http.post(
            f"{page_url}/submit",
            data={"workerId": pid, "assignmentId": ref, "pageToken": token_in_page(page.text)}
            | fields,
            headers={"Accept": "application/json"},
        )
        if stored.status_code != 200:
            report.refused.append(f"task server, {ref}: {stored.text[:200]}")
            return False
        if not self.door.finish(self.http, pid, stored.json()["next"]):
            report.refused.append(f"completion of {ref} refused")
            return False
        report.submit(ref, pid)
        return True
