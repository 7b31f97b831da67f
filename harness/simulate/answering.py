"""What every simulated crowd shares, whichever door it comes through: the report of what it
did, and each participant's answers to the items a task page shows (their archetype's response
model, at their pace)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from harness.answer import Answer
from harness.clock import utcnow
from harness.simulate.archetypes import Worker
from harness.spec.scale import Scale

_CARD = re.compile(r'<section class="card" data-key="([^"]*)"')


@dataclass
class DriverReport:
    submitted: list[str] = field(default_factory=list)  # assignment ids
    by_worker: dict[str, int] = field(default_factory=dict)  # platform worker id -> units done
    refused: list[str] = field(default_factory=list)  # what the servers refused, and why
    returned: list[str] = field(default_factory=list)  # units returned as their page asked
    on_submitted: Callable[[str], None] | None = None  # told each submission as it lands

    def line(self, study: str) -> str:
        """What the crowd did, in one line."""
        return (
            f"{study}: {len(self.submitted)} assignments submitted by {len(self.by_worker)} "
            "simulated workers"
        )

    def submit(self, assignment: str, worker: str) -> None:
        """Count one submission accepted by the servers (and tell ``on_submitted``)."""
        self.submitted.append(assignment)
        self.by_worker[worker] = self.by_worker.get(worker, 0) + 1
        if self.on_submitted is not None:
            self.on_submitted(assignment)


@dataclass
class Answering:
    """How simulated participants answer: ``truths`` maps item keys to latent values (control
    items included); an item without one is answered from the scale's midpoint."""

    truths: Mapping[str, float]
    scale: Scale
    start: datetime = field(default_factory=lambda: utcnow())

    def answers(
        self, worker: Worker, keys: Sequence[str], rng: np.random.Generator
    ) -> list[Answer]:
        """The worker's answer to each showing, with when it was shown and answered."""
        truths = np.array([self.truths.get(k, self.scale.midpoint) for k in keys], dtype=float)
        values = worker.answer(truths, self.scale, rng)
        seconds = worker.seconds(len(keys), rng)
        answers = []
        clock = self.start
        for position, (key, value, spent) in enumerate(zip(keys, values, seconds, strict=True)):
            shown = clock
            clock = clock + timedelta(seconds=float(spent))
            answers.append(Answer(key, position, float(value), False, shown, clock))
        return answers


def shown_keys(page: str) -> list[str]:
    """The item key of every showing on a task page, in the order the page shows them."""
    return [html.unescape(k) for k in _CARD.findall(page)]
