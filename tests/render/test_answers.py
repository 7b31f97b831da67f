"""The answer codec both ways, and MTurk's answer XML (as the local MTurk service writes it)
back into answers."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from harness.answer import Answer
from harness.providers.mturk.local_service.questions import answer_xml
from harness.render.answers import (
    AnswerFormatError,
    answers_from_xml,
    decode_fields,
    encode_answers,
)
from harness.render.plan import HitPlan
from tests.clock import minutes_ago

T0 = minutes_ago().replace(microsecond=123000)
PLAN = HitPlan(0, ("a", "b", "café"), ("a",))
ANSWERS = [
    Answer("b", 0, 7.5, shown_at=T0, answered_at=T0 + timedelta(seconds=4.25)),
    Answer("a", 1, None, skipped=True, shown_at=T0 + timedelta(seconds=5), answered_at=None),
    Answer("café", 2, 0.0),
    Answer(
        "a", 3, 10.0, shown_at=T0 + timedelta(seconds=9), answered_at=T0 + timedelta(seconds=12)
    ),
]


def test_encoded_answers_decode_to_the_same_answers():
    assert decode_fields(encode_answers(ANSWERS).items()) == ANSWERS


def test_mturk_answer_xml_with_one_freetext_per_field_parses_back():
    posted = [("assignmentId", "A1"), *encode_answers(ANSWERS).items()]
    xml = answer_xml([(k, v) for k, v in posted if k != "assignmentId"])
    assert "caf&#233;" in xml  # MTurk declares ASCII: the item key travels as a reference
    assert answers_from_xml(xml, PLAN) == ANSWERS


def test_a_crowd_form_answer_in_this_codec_parses_back():
    fields = encode_answers(ANSWERS)
    xml = answer_xml([("taskAnswers", json.dumps([fields]))])
    assert answers_from_xml(xml, PLAN) == ANSWERS


def test_a_crowd_form_answer_keyed_by_item_takes_positions_from_the_plan():
    xml = answer_xml([("taskAnswers", json.dumps([{"b": "3", "a": 4, "café": ""}]))])
    assert answers_from_xml(xml, PLAN) == [
        Answer("a", 0, 4.0),
        Answer("b", 1, 3.0),
        Answer("café", 2, None, skipped=True),
    ]


MTURKS_OWN = [
    ("assignmentId", "A1"),
    ("workerId", "AW1"),
    ("hitId", "H1"),
    ("turkSubmitTo", "https://www.mturk.com"),
]


def test_mturks_own_parameters_in_an_answer_document_are_never_answers():
    """Whatever a form posted back to MTurk (a custom template's hidden fields), MTurk's own
    parameters are not read as answers: not per field, not in a crowd form's object."""
    fields = [*MTURKS_OWN, *encode_answers(ANSWERS).items()]
    assert answers_from_xml(answer_xml(fields), PLAN) == ANSWERS
    crowd = answer_xml([("taskAnswers", json.dumps([dict(fields)]))])
    assert answers_from_xml(crowd, PLAN) == ANSWERS
    keyed = answer_xml(
        [("taskAnswers", json.dumps([{"b": "3", "a": 4, "café": "", **dict(MTURKS_OWN)}]))]
    )
    assert [a.item_key for a in answers_from_xml(keyed, PLAN)] == ["a", "b", "café"]


def test_a_crowd_form_answer_naming_other_items_is_refused():
    xml = answer_xml([("taskAnswers", json.dumps([{"a": 1, "zzz": 2}]))])
    with pytest.raises(AnswerFormatError) as info:
        answers_from_xml(xml, PLAN)
    assert info.value.problems == ["unexpected field 'zzz': not an item of this HIT"]


def test_every_unreadable_field_is_reported_at_once():
    fields = [
        ("item-0", "a"),
        ("value-0", "1e400"),
        ("item-0", "b"),
        ("shown-1", "-5"),
        ("colour", "red"),
    ]
    with pytest.raises(AnswerFormatError) as info:
        decode_fields(fields)
    assert info.value.problems == [
        "field 'item-0' was sent twice",
        "unexpected field 'colour': this page does not have it",
        "answer 1: '1e400' is not a number (digits 0-9)",
        "answer 2: the item it answers is missing (field item-1)",
    ]


def test_answers_that_are_not_xml_are_refused():
    with pytest.raises(AnswerFormatError, match="the answer is not XML"):
        answers_from_xml("<QuestionFormAnswers>", PLAN)


def test_a_decimal_comma_is_read_as_a_decimal_point():
    (answer,) = decode_fields([("item-0", "a"), ("value-0", "7,5")])
    assert answer.value == 7.5
