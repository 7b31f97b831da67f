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
from harness.page_signals import InputKind, PageSignals
from harness.render.answers import encode_answers
from harness.render.consent import encode_consent
from harness.simulate.archetypes import Archetype, Worker
from harness.spec.scale import Scale

_CARD = re.compile(r'<section class="card" data-key="([^"]*)"')
_CONSENT = re.compile(r'"consent":\s*"([0-9a-f]*)"')


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
    items included); an item without one is answered from the scale's midpoint. ``machine``
    (item key -> a system's answer, `harness.simulate.machine.machine_answers`) is what
    model-assisted workers answer from, where it has the item."""

    truths: Mapping[str, float]
    scale: Scale
    start: datetime = field(default_factory=lambda: utcnow())
    machine: Mapping[str, float] | None = None  # what model-assisted workers answer from

    def answers(
        self, worker: Worker, keys: Sequence[str], rng: np.random.Generator
    ) -> list[Answer]:
        """The worker's answer to each showing, with when it was shown and answered and the
        page signals its archetype leaves (`page_signals`)."""
        source = self.machine if worker.archetype is Archetype.MODEL_ASSISTED else self.truths
        if source is None:
            raise ValueError("model-assisted workers need the machine's answers (machine=...)")
        truths = np.array([source.get(k, self.truths.get(k, self.scale.midpoint)) for k in keys])
        values = worker.answer(truths, self.scale, rng)
        seconds = worker.seconds(len(keys), rng)
        answers = []
        clock = self.start
        for position, (key, value, spent) in enumerate(zip(keys, values, seconds, strict=True)):
            shown = clock
            clock = clock + timedelta(seconds=float(spent))
            signals = page_signals(worker.archetype, float(spent))
            answers.append(Answer(key, position, float(value), False, shown, clock, signals))
        return answers


def page_signals(archetype: Archetype, seconds: float) -> PageSignals:
    """What a simulated worker's page notices on an item answered in ``seconds``: a person
    answers the visible page with a pointer; a model-assisted worker spends most of the time in
    the model's tab and types the answer; a bot answers a hidden page with neither."""
    if archetype is Archetype.BOT:
        return PageSignals(0.0, seconds, 0, 0, 0, InputKind.NONE, True)
    if archetype is Archetype.MODEL_ASSISTED:
        away = round(seconds * 0.7, 3)
        return PageSignals(seconds - away, away, 1, 1, 0, InputKind.KEYBOARD, False)
    return PageSignals(seconds, 0.0, 0, 0, 0, InputKind.POINTER, False)


def posted_fields(page: str, answers: Sequence[Answer]) -> dict[str, str]:
    """The form fields ``page`` posts for ``answers``: each answer's, and, when the study asks
    for consent, the participant's agreement given just before the first item was shown."""
    fields = encode_answers(answers)
    consent = _CONSENT.search(page)
    shown = [a.shown_at for a in answers if a.shown_at is not None]
    if consent and consent[1] and shown:
        fields |= encode_consent(consent[1], min(shown))
    return fields


def shown_keys(page: str) -> list[str]:
    """The item key of every showing on a task page, in the order the page shows them."""
    return [html.unescape(k) for k in _CARD.findall(page)]
