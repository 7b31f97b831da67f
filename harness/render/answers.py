"""The task page's form fields, both ways, and MTurk's answer XML back into answers.

One codec for both hosting modes. For the showing at (0-based) position ``p`` the page posts:

| field | content |
| --- | --- |
| ``item-p`` | the item key shown at position ``p`` |
| ``value-p`` | the answer (a number), empty when skipped |
| ``skip-p`` | ``1`` when the worker skipped the item (or answered "no" to the gate) |
| ``shown-p``, ``answered-p`` | when the item was first shown / last answered, in milliseconds since
  the Unix epoch (the browser's clock) |
| ``signal-p`` | the showing's page signals (`harness.render.signals`; optional) |

What MTurk itself gives a page (``assignmentId``, ``workerId``, ``hitId``, ``turkSubmitTo``) and
the page token are never answers, wherever they come (`NOT_ANSWERS`), nor is the consent a
page posts (``consent``, ``consentedAt``: `harness.render.consent`).
MTurk returns every posted field as one ``FreeText`` answer of a QuestionFormAnswers document;
a crowd-form page returns one ``taskAnswers`` answer holding a JSON array of one object, either
in this codec or keyed by item key (``{"ws353-001": 7.5, ...}``; positions in the plan's order).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

from harness.answer import Answer
from harness.clock import utcnow
from harness.i18n import _
from harness.render.plan import HitPlan
from harness.render.signals import encode_signals, read_signals

_FIELD = re.compile(r"^(item|value|skip|shown|answered|signal)-(\d{1,5})$")
NOT_ANSWERS = frozenset({"assignmentId", "workerId", "hitId", "turkSubmitTo", "pageToken"})
"""Posted fields that are not answers."""
CONSENT_FIELDS = frozenset({"consent", "consentedAt"})
"""Posted fields that say what the participant agreed to and when (`harness.render.consent`);
never answers, kept with them until they are stored."""


class AnswerFormatError(ValueError):
    """Posted fields that cannot be read as answers; ``problems`` says what, one per field."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def encode_answers(answers: Iterable[Answer]) -> dict[str, str]:
    """The form fields a page posts for ``answers`` (what simulated workers and tests post)."""
    fields: dict[str, str] = {}
    for a in answers:
        p = a.position
        fields[f"item-{p}"] = a.item_key
        fields[f"value-{p}"] = "" if a.value is None else f"{a.value:g}"
        fields[f"skip-{p}"] = "1" if a.skipped else ""
        fields[f"shown-{p}"] = write_millis(a.shown_at)
        fields[f"answered-{p}"] = write_millis(a.answered_at)
        if a.signals is not None:
            fields[f"signal-{p}"] = encode_signals(a.signals)
    return fields


def decode_fields(fields: Iterable[tuple[str, str]]) -> list[Answer]:
    """Answers from posted (name, value) pairs, by position; raises `AnswerFormatError` with
    every unreadable field at once (unknown names, repeated fields, numbers that are not)."""
    problems: list[str] = []
    by_position: dict[int, dict[str, str]] = {}
    for name, value in fields:
        if name in NOT_ANSWERS or name in CONSENT_FIELDS:
            continue
        match = _FIELD.match(name)
        if match is None:
            problems.append(
                _("unexpected field {name}: this page does not have it").format(name=repr(name))
            )
            continue
        kind, position = match[1], int(match[2])
        slot = by_position.setdefault(position, {})
        if kind in slot:
            problems.append(_("field {name} was sent twice").format(name=repr(name)))
        slot[kind] = value.strip()
    answers = []
    for position in sorted(by_position):
        slot = by_position[position]
        n = position + 1
        where = _("answer {n}").format(n=n)
        key = slot.get("item", "")
        if not key:
            problems.append(
                _("{where}: the item it answers is missing (field {field})").format(
                    where=where, field=f"item-{position}"
                )
            )
            continue
        number = _number(slot.get("value", ""), where, problems)
        shown = read_millis(slot.get("shown", ""), _("answer {n} (shown)").format(n=n), problems)
        answered = read_millis(
            slot.get("answered", ""), _("answer {n} (answered)").format(n=n), problems
        )
        if shown is not None and answered is not None and answered < shown:
            problems.append(
                _("{where}: answered ({answered}) before it was shown ({shown})").format(
                    where=where, answered=slot["answered"], shown=slot["shown"]
                )
            )
        answers.append(
            Answer(
                item_key=key,
                position=position,
                value=number,
                skipped=slot.get("skip", "") not in ("", "0", "false"),
                shown_at=shown,
                answered_at=answered,
                signals=read_signals(slot.get("signal", ""), where, problems),
            )
        )
    if problems:
        raise AnswerFormatError(problems)
    return answers


def answers_from_xml(answer_xml: str, plan: HitPlan) -> list[Answer]:
    """Answers from MTurk's QuestionFormAnswers XML for an assignment of ``plan``'s HIT.

    One ``FreeText`` per posted field (this codec), or a crowd-form page's single
    ``taskAnswers`` JSON array: its object is read with this codec when it has ``item-0``,
    else as ``{item key: value}`` with positions in ``plan.items`` order (no timings; such a
    form answers each item once, so `check_answers` reports repeated showings as missing).
    """
    pairs = _freetext_answers(answer_xml)
    if len(pairs) == 1 and pairs[0][0] == "taskAnswers":
        return _crowd_form_answers(pairs[0][1], plan)
    return decode_fields(pairs)


def fields_from_xml(answer_xml: str) -> list[tuple[str, str]]:
    """The fields a page posted, from MTurk's QuestionFormAnswers XML: one per ``FreeText``, or
    a crowd-form page's ``taskAnswers`` object's (its values as text)."""
    pairs = _freetext_answers(answer_xml)
    if len(pairs) == 1 and pairs[0][0] == "taskAnswers":
        data = _crowd_form_object(pairs[0][1])
        return [(str(k), _text(v)) for k, v in data.items()]
    return pairs


def _freetext_answers(answer_xml: str) -> list[tuple[str, str]]:
    try:
        root = ET.fromstring(answer_xml)
    except ET.ParseError as exc:
        raise AnswerFormatError([f"the answer is not XML: {exc}"]) from exc
    pairs = []
    for answer in root:
        if _local(answer.tag) != "Answer":
            continue
        identifier = value = None
        for child in answer:
            tag = _local(child.tag)
            if tag == "QuestionIdentifier":
                identifier = (child.text or "").strip()
            elif tag == "FreeText":
                value = child.text or ""
        if identifier:
            pairs.append((identifier, value or ""))
    return pairs


def _crowd_form_object(text: str) -> Mapping[str, object]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # not JSON, a 5,000-digit number, deep nesting
        raise AnswerFormatError([f"taskAnswers is not JSON: {str(exc)[:200]}"]) from exc
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, Mapping):
        raise AnswerFormatError(["taskAnswers should hold one object of fields"])
    return data


def _crowd_form_answers(text: str, plan: HitPlan) -> list[Answer]:
    fields = {str(k): v for k, v in _crowd_form_object(text).items()}
    if "item-0" in fields:
        return decode_fields((k, _text(v)) for k, v in fields.items())
    problems: list[str] = []
    answers = []
    for position, key in enumerate(plan.items):  # one answer per item: no repeated showings
        if key not in fields:
            continue  # check_answers reports the missing item
        value = _number(_text(fields[key]), f"item {key}", problems)
        answers.append(Answer(key, position, value, skipped=value is None))
    unknown = sorted(set(fields) - set(plan.showings) - NOT_ANSWERS - CONSENT_FIELDS)
    problems += [f"unexpected field {k!r}: not an item of this HIT" for k in unknown]
    if problems:
        raise AnswerFormatError(problems)
    return answers


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else ""
    return "" if value is None else str(value)


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)", re.ASCII)
_MILLIS = re.compile(r"[0-9]{1,15}(?:\.[0-9]*)?", re.ASCII)
MAX_NUMBER_CHARS = 40
"""A posted number longer than this is refused (no scale needs more digits)."""
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
"""No answer was shown or given before this (a clock far off, or a made-up time)."""


def _number(text: str, where: str, problems: list[str]) -> float | None:
    """A plain ASCII decimal (``7``, ``-1.5``, ``6,5``): no exponent, no ``_``, no other
    script's digits, no inf or nan; checking it against the scale is `check_answers`' job."""
    if text == "":
        return None
    if len(text) > MAX_NUMBER_CHARS or _DECIMAL.fullmatch(text) is None:
        problems.append(
            _("{where}: {text} is not a number (digits 0-9)").format(
                where=where, text=repr(text[:MAX_NUMBER_CHARS])
            )
        )
        return None
    return float(text.replace(",", "."))


def read_millis(text: str, where: str, problems: list[str]) -> datetime | None:
    """Milliseconds since the Unix epoch (ASCII digits), from 2000 up to a day from now."""
    if text == "":
        return None
    latest = utcnow() + SKEW
    if len(text) <= 30 and _MILLIS.fullmatch(text) is not None:
        millis = float(text)  # at most 15 digits before the point: always a finite float
        # compared as a number first: a time past year 9999 cannot be made a datetime at all
        if EARLIEST.timestamp() * 1000 <= millis <= latest.timestamp() * 1000:
            return datetime.fromtimestamp(millis / 1000, UTC)
    problems.append(
        _(
            "{where}: {text} is not a time in milliseconds between 2000 and now (is this "
            "computer's clock right?)"
        ).format(where=where, text=repr(text[:30]))
    )
    return None


SKEW = timedelta(days=1)
"""How far a browser's clock may be ahead of the server's."""


def write_millis(when: datetime | None) -> str:
    """A time as a page posts it (`read_millis` reads it): milliseconds since 1970, "" for none."""
    return "" if when is None else str(round(when.timestamp() * 1000))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
