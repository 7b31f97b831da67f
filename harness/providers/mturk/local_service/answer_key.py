"""Qualification tests: the QuestionForm a worker answers, and the AnswerKey that scores it.

Scoring follows MTurk's API reference, "AnswerKey": for each Question, the AnswerOption whose
SelectionIdentifiers are exactly the worker's selections adds its AnswerScore (which may be
negative); if none matches, the Question's DefaultScore (0 when absent) is added. The summed
score becomes the qualification value as the QualificationValueMapping says: none, the sum
itself; PercentageMapping, sum / MaximumSummedScore x 100 rounded to the nearest integer;
ScaleMapping, sum x SummedScoreMultiplier; RangeMapping, the QualificationValue of the
SummedScoreRange holding the sum, else OutOfRangeQualificationValue. Rounding is half-up, and a
ScaleMapping product is rounded the same way (chosen: a qualification value is an integer).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from xml.sax.saxutils import escape

from harness.providers.mturk.local_service.questions import (
    ANSWERS_NS,
    MAX_QUESTION_BYTES,
    xml_error,
)


@dataclass(frozen=True)
class TestQuestion:
    """One question of a test: its identifier and the selections it offers (none: free text)."""

    identifier: str
    selections: tuple[str, ...]


@dataclass(frozen=True)
class Mapping:
    kind: str  # "sum", "percentage", "scale", "range"
    maximum: int = 0
    multiplier: Decimal = Decimal(1)
    ranges: tuple[tuple[int, int, int], ...] = ()  # (lower, upper, value), inclusive
    out_of_range: int = 0


@dataclass(frozen=True)
class AnswerKey:
    options: dict[str, list[tuple[frozenset[str], int]]] = field(default_factory=dict)
    defaults: dict[str, int] = field(default_factory=dict)
    mapping: Mapping = Mapping("sum")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in element if _local(c.tag) == name]


def _text(element: ET.Element, name: str, where: str) -> str:
    found = _children(element, name)
    if not found or not (found[0].text or "").strip():
        raise xml_error(f"{where} needs a <{name}>")
    return (found[0].text or "").strip()


def _int(element: ET.Element, name: str, where: str) -> int:
    value = _text(element, name, where)
    try:
        number = int(value)
    except ValueError as exc:
        raise xml_error(f"<{name}> in {where} must be an integer, got {value!r}") from exc
    if abs(number) > 2**31 - 1:
        raise xml_error(f"<{name}> in {where} is out of range: {value}")
    return number


def _parse(text: str, parameter: str, root_name: str) -> ET.Element:
    if len(text.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise xml_error(f"the {parameter} is longer than {MAX_QUESTION_BYTES:,} bytes")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise xml_error(f"the {parameter} is not well-formed XML ({exc})") from exc
    if _local(root.tag) != root_name:
        raise xml_error(f"the {parameter} must be a <{root_name}>, not <{_local(root.tag)}>")
    return root


def parse_test(text: str) -> list[TestQuestion]:
    """The questions of a Test (a QuestionForm); RequestError (XMLParseError) if it is not one."""
    root = _parse(text, "Test", "QuestionForm")
    questions = []
    for q in _children(root, "Question"):
        identifier = _text(q, "QuestionIdentifier", "a <Question>")
        selections = tuple(
            (s.text or "").strip() for s in q.iter() if _local(s.tag) == "SelectionIdentifier"
        )
        questions.append(TestQuestion(identifier, selections))
    if not questions:
        raise xml_error("the Test has no <Question>")
    return questions


def _mapping(root: ET.Element) -> Mapping:
    found = _children(root, "QualificationValueMapping")
    if not found:
        return Mapping("sum")
    inner = list(found[0])
    kind = _local(inner[0].tag) if inner else ""
    if kind == "PercentageMapping":
        maximum = _int(inner[0], "MaximumSummedScore", "<PercentageMapping>")
        if maximum <= 0:
            raise xml_error("<MaximumSummedScore> must be greater than 0")
        return Mapping("percentage", maximum=maximum)
    if kind == "ScaleMapping":
        value = _text(inner[0], "SummedScoreMultiplier", "<ScaleMapping>")
        try:
            multiplier = Decimal(value)
        except InvalidOperation as exc:
            raise xml_error(f"<SummedScoreMultiplier> must be a number, got {value!r}") from exc
        if not multiplier.is_finite() or abs(multiplier) > 10**6:
            raise xml_error(f"<SummedScoreMultiplier> is out of range: {value}")
        return Mapping("scale", multiplier=multiplier)
    if kind == "RangeMapping":
        ranges = tuple(
            (
                _int(r, "InclusiveLowerBound", "<SummedScoreRange>"),
                _int(r, "InclusiveUpperBound", "<SummedScoreRange>"),
                _int(r, "QualificationValue", "<SummedScoreRange>"),
            )
            for r in _children(inner[0], "SummedScoreRange")
        )
        if not ranges:
            raise xml_error("<RangeMapping> needs at least one <SummedScoreRange>")
        out = _int(inner[0], "OutOfRangeQualificationValue", "<RangeMapping>")
        return Mapping("range", ranges=ranges, out_of_range=out)
    raise xml_error(
        "<QualificationValueMapping> must hold a PercentageMapping, ScaleMapping or RangeMapping"
    )


def parse_answer_key(text: str, test: list[TestQuestion]) -> AnswerKey:
    """An AnswerKey checked against the Test it scores (every question must be in the Test)."""
    root = _parse(text, "AnswerKey", "AnswerKey")
    known = {q.identifier for q in test}
    key = AnswerKey(mapping=_mapping(root))
    for q in _children(root, "Question"):
        identifier = _text(q, "QuestionIdentifier", "an AnswerKey <Question>")
        if identifier not in known:
            raise xml_error(f"the AnswerKey scores question {identifier!r}, which the Test lacks")
        options = []
        for option in _children(q, "AnswerOption"):
            chosen = frozenset(
                (s.text or "").strip() for s in _children(option, "SelectionIdentifier")
            )
            if not chosen:
                raise xml_error(f"an <AnswerOption> of {identifier!r} has no SelectionIdentifier")
            options.append((chosen, _int(option, "AnswerScore", f"{identifier!r}")))
        key.options[identifier] = options
        if _children(q, "DefaultScore"):
            key.defaults[identifier] = _int(q, "DefaultScore", f"{identifier!r}")
    return key


def _round(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def score(key: AnswerKey, answers: dict[str, frozenset[str]]) -> int:
    """The qualification value a worker's answers (question -> selections) earn."""
    total = 0
    for identifier, options in key.options.items():
        given = answers.get(identifier, frozenset())
        earned = [points for chosen, points in options if chosen == given]
        total += earned[0] if earned else key.defaults.get(identifier, 0)
    mapping = key.mapping
    if mapping.kind == "percentage":
        return _round(Decimal(total) * 100 / Decimal(mapping.maximum))
    if mapping.kind == "scale":
        return _round(Decimal(total) * mapping.multiplier)
    if mapping.kind == "range":
        for lower, upper, value in mapping.ranges:
            if lower <= total <= upper:
                return value
        return mapping.out_of_range
    return total


def answers_xml(test: list[TestQuestion], answers: dict[str, frozenset[str]]) -> str:
    """QuestionFormAnswers for a test: SelectionIdentifier answers, or FreeText for text ones."""
    parts = [f'<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="{ANSWERS_NS}">']
    for q in test:
        values = sorted(answers.get(q.identifier, frozenset()))
        parts.append(f"<Answer><QuestionIdentifier>{escape(q.identifier)}</QuestionIdentifier>")
        if q.selections:
            parts += [f"<SelectionIdentifier>{escape(v)}</SelectionIdentifier>" for v in values]
        else:
            parts.append(f"<FreeText>{escape(values[0] if values else '')}</FreeText>")
        parts.append("</Answer>")
    parts.append("</QuestionFormAnswers>")
    return "".join(parts).encode("ascii", "xmlcharrefreplace").decode("ascii")
