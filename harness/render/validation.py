"""Check one assignment's answers against its HIT before anything is stored.

Every problem is reported at once, in words a worker can act on: which item (by its number on
the page and what it shows), what was wrong, and what is allowed; in the language in use
(`harness.i18n`: the study's, on the task server), numbers written as it writes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from harness.answer import Answer, times_outside
from harness.i18n import _, format_number
from harness.render.answers import SKEW, AnswerFormatError, decode_fields
from harness.render.consent import read_consent
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan
from harness.spec.scale import Scale
from harness.spec.study_types import definition


def check_answers(
    instrument: Instrument,
    plan: HitPlan,
    answers: Sequence[Answer],
    *,
    worker_order: Sequence[str] | None = None,
) -> list[str]:
    """Problems with ``answers`` to ``plan``'s HIT; an empty list means they may be stored.

    ``worker_order`` (item key per position, as `showing_order` served it) also checks that
    each answer names the item shown at its position; without it (pages the platform hosts
    shuffle in the browser) positions must only be 0..n-1, each used once.
    """
    expected = Counter(plan.showings)
    total = sum(expected.values())
    scale = instrument.scale
    may_skip = scale.skip or instrument.spec.scale.gate is not None
    problems: list[str] = []

    positions = Counter(a.position for a in answers)
    for position, count in sorted(positions.items()):
        if not 0 <= position < total:
            problems.append(
                _("answer {n}: there is no such question; this HIT has {total}").format(
                    n=position + 1, total=total
                )
            )
        elif count > 1:
            problems.append(
                _("question {n} was answered {count} times; answer it once").format(
                    n=position + 1, count=count
                )
            )

    seen = Counter(a.item_key for a in answers)
    for key, count in sorted(seen.items()):
        if key not in expected:
            problems.append(
                _("an answer names item {key}, which is not part of this HIT").format(key=repr(key))
            )
        elif count > expected[key]:
            problems.append(
                (
                    _("the item {label} was answered {count} times but is shown once")
                    if expected[key] == 1
                    else _("the item {label} was answered {count} times but is shown {shown} times")
                ).format(label=_quoted(instrument, key), count=count, shown=expected[key])
            )

    for answer in sorted(answers, key=lambda a: a.position):
        if answer.item_key not in expected:
            continue
        problem = _problem(instrument, scale, answer, worker_order, may_skip)
        if problem is not None:  # named only then: an item's label is work for a problem
            problems.append(
                _("question {n} ({label}): {problem}").format(
                    n=answer.position + 1,
                    label=_label(instrument, answer.item_key),
                    problem=problem,
                )
            )

    missing = expected - seen
    for key in sorted(missing):
        problems.append(
            (
                _("the item {label} has no answer; please answer every item")
                if missing[key] == 1
                else _(
                    "the item {label} has no answer ({count} showings); please answer every item"
                )
            ).format(label=_quoted(instrument, key), count=missing[key])
        )
    return problems


def _problem(
    instrument: Instrument,
    scale: Scale,
    answer: Answer,
    worker_order: Sequence[str] | None,
    may_skip: bool,
) -> str | None:
    """What is wrong with one answer to an item of the HIT, or None."""
    if worker_order is not None and 0 <= answer.position < len(worker_order):
        if worker_order[answer.position] != answer.item_key:
            return _("this page showed another item there; reload the HIT page and answer again")
    if answer.skipped:
        if not may_skip:
            return _("skipping is not possible in this task; please answer")
        if answer.value is not None:
            return _("marked as skipped but also answered; choose one")
        return None
    if answer.value is None:
        return _("no answer; {allowed}").format(allowed=_allowed(instrument, scale))
    if not definition(instrument.spec.type).accepts(scale, answer.value):
        return _("{value} is not allowed; {allowed}").format(
            value=format_number(answer.value, every_decimal=True),
            allowed=_allowed(instrument, scale),
        )
    return None


def _allowed(instrument: Instrument, scale: Scale) -> str:
    return definition(instrument.spec.type).allowed_answers(scale, instrument.spec.scale.skip_label)


def _label(instrument: Instrument, key: str) -> str:
    if not instrument.has_item(key):
        return key
    return definition(instrument.spec.type).item_label(instrument.sides(key))


def _quoted(instrument: Instrument, key: str) -> str:
    return repr(_label(instrument, key))


@dataclass(frozen=True)
class AnswersRefused:
    """Why posted fields were not stored: ``status`` 400 when they cannot be read as answers,
    422 when they can but do not answer this HIT (scale, items, times), with every problem."""

    status: int
    problems: list[str]


def read_posted(
    fields: Iterable[tuple[str, str]],
    instrument: Instrument,
    plan: HitPlan,
    *,
    worker_order: Sequence[str] | None,
    opened: datetime,
    now: datetime,
) -> list[Answer] | AnswersRefused:
    """The answers a page posted for ``plan``'s HIT, or why they cannot be stored: the one
    reading of a submission (every task page and participant page), which raises nothing
    whatever the fields hold. Times must fall in the task's window: from ``opened`` (the HIT
    posted, the place held) to ``now``, give or take `SKEW`. A study with a consent text
    refuses answers without a consent to it (`harness.render.consent`)."""
    fields = list(fields)
    try:
        answers = decode_fields(fields)
    except AnswerFormatError as exc:
        return AnswersRefused(400, exc.problems)
    problems = check_answers(instrument, plan, answers, worker_order=worker_order)
    problems += times_outside(answers, opened, now, SKEW)
    consent = read_consent(fields, instrument.spec.consent, opened=opened, now=now, skew=SKEW)
    if isinstance(consent, list):
        problems += consent
    return AnswersRefused(422, problems) if problems else answers
