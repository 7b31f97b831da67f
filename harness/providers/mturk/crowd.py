"""Simulated workers doing a study's HITs through the local MTurk service's worker side: MTurk's
crowd door (`Capabilities.crowd_door`, `mturk_door`).

Each worker is an HTTP agent: it lists the HITs it may take, accepts one, reads the task page
(the ExternalURL harness serves, or the HTMLQuestion's own HTML), answers every item shown
with its archetype's response model, and submits the way the page does: for ``external``
hosting the answers go to the task server first and then to MTurk's ``externalSubmit``; for
``mturk`` hosting the form fields go to ``externalSubmit`` only. Timings are simulated too
(each item shown and answered at the worker's pace).

A task page that asks the worker to return the HIT (a study with arms: a HIT of another arm
than theirs, 409) is returned at once and another HIT taken, as a person would. With
``keep_group`` (a study with arms) a worker takes HITs only of the HIT group of their first
submitted HIT, as the study asks: with MTurk hosting nothing else keeps them there until sync
tells MTurk their arm.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from harness.answer import Answer
from harness.clock import utcnow
from harness.simulate.answering import Answering, DriverReport, posted_fields, shown_keys
from harness.simulate.archetypes import Worker
from harness.simulate.door import Visit
from harness.spec.scale import Scale
from harness.web.tokens import token_in_page

WORKER_PROFILE = {"country": "US", "numberApproved": 5000, "percentApproved": 99}
"""What simulated MTurk workers tell the worker side (they meet the shipped specs' needs)."""
RETURN_ASKED = 409
"""The task server's answer to a HIT of another arm than the worker's: return it."""
TRIES = 3
"""HITs a worker takes in one turn when pages ask them to return the ones before."""


@dataclass
class SimulatedWorkers:
    """A crowd of simulated workers pointed at a local MTurk service (``mturk_url``).

    ``truths`` maps item keys to latent values (control items included); an item without
    one is answered from the scale's midpoint. ``profile`` is what each worker tells the
    worker side (e.g. ``{"country": "US", "numberApproved": 5000}``).
    """

    mturk_url: str
    workers: Sequence[Worker]
    truths: Mapping[str, float]
    scale: Scale
    http: Any
    seed: int = 0
    profile: Mapping[str, Any] = field(default_factory=dict)
    start: datetime = field(default_factory=lambda: utcnow())
    keep_group: bool = False  # each worker keeps to the HIT group of their first HIT
    machine: Mapping[str, float] | None = None  # what model-assisted workers answer from
    _groups: dict[str, str] = field(default_factory=dict)  # worker -> HIT type (keep_group)
    _types: dict[str, str] = field(default_factory=dict)  # HIT -> its HIT type (keep_group)

    def run(self, rounds: int | None = None, report: DriverReport | None = None) -> DriverReport:
        """Workers take turns, one HIT each per round, until nobody can take any (or ``rounds``);
        what they did goes into ``report`` (a new one by default)."""
        report = report or DriverReport()
        rng = np.random.default_rng([self.seed, 4])
        done = 0
        while rounds is None or done < rounds:
            took = 0
            for worker in self.workers:
                if self._take(worker, rng, report):
                    took += 1
            done += 1
            if took == 0:
                break
        return report

    def _take(self, worker: Worker, rng: np.random.Generator, report: DriverReport) -> bool:
        """One HIT done by ``worker``; another tried when a page asked to return one."""
        for _ in range(TRIES):
            hit = self._next_hit(worker)
            if hit is None:
                return False
            returned = len(report.returned)
            if self.work(worker, hit, rng, report):
                return True
            if len(report.returned) == returned:
                return False  # refused for another reason than the HIT's arm
        return False

    def _next_hit(self, worker: Worker) -> str | None:
        group = self._groups.get(worker.worker_id)
        token: str | None = None
        while True:
            listed = self._get(  # the list is paged: ask only for what this worker can take
                "/worker/hits",
                workerId=mturk_worker_id(worker.worker_id),
                acceptable=1,
                **self.profile,
                **({"nextToken": token} if token else {}),
            )
            for hit in listed["HITs"]:
                if hit["canAccept"] and group in (None, hit["HITTypeId"]):
                    if self.keep_group:
                        self._types[str(hit["HITId"])] = str(hit["HITTypeId"])
                    return str(hit["HITId"])
            token = listed.get("NextToken")
            if not token or group is None:
                return None

    def work(
        self, worker: Worker, hit_id: str, rng: np.random.Generator, report: DriverReport
    ) -> bool:
        """Accept, answer and submit one HIT; False (and the reason in the report) if refused."""
        worker_id = mturk_worker_id(worker.worker_id)
        r = self.http.post(
            f"{self.mturk_url}/worker/hits/{hit_id}/accept",
            data={"workerId": worker_id, **self.profile},
        )
        if r.status_code != 200:
            report.refused.append(f"accept {hit_id} by {worker_id}: {r.text}")
            return False
        task = r.json()
        assignment_id = task["AssignmentId"]
        if task["QuestionType"] == "ExternalQuestion":
            page = self.http.get(task["ExternalURL"])
            if page.status_code != 200:  # a person gives back a HIT they cannot do
                self.http.post(
                    f"{self.mturk_url}/worker/assignments/{assignment_id}/return",
                    data={"workerId": worker_id},
                )
                if page.status_code == RETURN_ASKED:
                    report.returned.append(hit_id)
                else:
                    report.refused.append(f"page of {hit_id}: {page.status_code}")
                return False
            text = page.text  # decoded once
            keys = shown_keys(text)
            fields = posted_fields(text, self.answers(worker, keys, rng))
            answers_url = _answers_url(task["ExternalURL"])
            stored = self.http.post(
                answers_url,
                data={
                    "assignmentId": assignment_id,
                    "workerId": worker_id,
                    "hitId": hit_id,
                    "pageToken": token_in_page(text),
                }
                | fields,
                headers={"Accept": "application/json"},
            )
            if stored.status_code != 200:
                report.refused.append(f"task server, {assignment_id}: {stored.text}")
                return False
        else:
            keys = shown_keys(task["HTMLContent"])
            fields = posted_fields(task["HTMLContent"], self.answers(worker, keys, rng))
        submitted = self.http.post(task["SubmitURL"], data={"assignmentId": assignment_id} | fields)
        if submitted.status_code != 200:
            report.refused.append(f"externalSubmit {assignment_id}: {submitted.text}")
            return False
        report.submit(assignment_id, worker_id)
        if self.keep_group and hit_id in self._types:
            self._groups.setdefault(worker.worker_id, self._types[hit_id])
        return True

    def answers(
        self, worker: Worker, keys: Sequence[str], rng: np.random.Generator
    ) -> list[Answer]:
        """The worker's answer to each showing, with when it was shown and answered."""
        answering = Answering(self.truths, self.scale, self.start, machine=self.machine)
        return answering.answers(worker, keys, rng)

    def _get(self, path: str, **params: Any) -> dict[str, Any]:
        r = self.http.get(self.mturk_url + path, params=params)
        r.raise_for_status()
        result: dict[str, Any] = r.json()
        return result


def mturk_worker_id(worker_id: str) -> str:
    """An MTurk-shaped id for a simulated worker (``w001`` -> ``AW001``): MTurk's model
    refuses worker ids that are not ``A`` followed by capitals and digits."""
    return "A" + re.sub(r"[^A-Z0-9]", "", worker_id.upper())


def _answers_url(external_url: str) -> str:
    """Where an external page posts its answers: ``<page path>/submit`` on the same server."""
    parts = urlsplit(external_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/submit", "", ""))


@dataclass
class MTurkDoor:
    """The local MTurk service's worker side, at ``endpoint``."""

    endpoint: str

    def admit(self, visit: Visit, report: DriverReport) -> DriverReport:
        """Workers find, accept, answer and submit HITs until none is left for them."""
        return SimulatedWorkers(
            self.endpoint,
            visit.workers,
            visit.truths,
            visit.scale,
            visit.http,
            seed=visit.seed,
            profile=WORKER_PROFILE | {"country": visit.country},
            keep_group=visit.keep_group,
            machine=visit.machine,
        ).run(report=report)


def mturk_door(endpoint: str | None, public_url: str, study: str) -> MTurkDoor:
    if endpoint is None:
        raise ValueError("a crowd on MTurk needs its local service's address")
    return MTurkDoor(endpoint)
