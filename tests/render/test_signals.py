"""The page signals' form field: read back as sent, every part checked, optional."""

from __future__ import annotations

from datetime import timedelta

import pytest

from harness.answer import Answer
from harness.page_signals import InputKind, PageSignals
from harness.render.answers import AnswerFormatError, decode_fields, encode_answers
from tests.clock import minutes_ago

T0 = minutes_ago(5)
SIGNALS = PageSignals(5.32, 1.5, 1, 2, 0, InputKind.POINTER, False)


def _fields(signal: str | None) -> list[tuple[str, str]]:
    answer = Answer("a", 0, 7.0, shown_at=T0, answered_at=T0 + timedelta(seconds=6))
    fields = [(k, v) for k, v in encode_answers([answer]).items()]
    return fields if signal is None else [*fields, ("signal-0", signal)]


def test_signals_are_posted_with_their_answer_and_read_back_as_sent():
    answer = Answer("a", 0, 7.0, shown_at=T0, answered_at=T0, signals=SIGNALS)
    fields = encode_answers([answer])
    assert fields["signal-0"] == "5320,1500,1,2,0,pointer,0"
    (back,) = decode_fields(fields.items())
    assert back == answer


def test_a_page_that_sends_no_signals_leaves_them_unknown():
    (back,) = decode_fields(_fields(None))
    assert back.signals is None and back.value == 7.0


@pytest.mark.parametrize(
    ("signal", "problem"),
    [
        ("1,2,3", "answer 1 (signals): '1,2,3' is not 7 comma-separated parts"),
        (
            "5320,-1,0,0,0,pointer,0",
            "answer 1 (signals): '-1' is not a whole number of milliseconds (at most a day) or "
            "events (at most 10,000)",
        ),
        ("1,1,1,1,99999,both,0", "'99999' is not a whole number"),
        ("1,1,1,1,1,typed,0", "input 'typed' is not one of pointer, keyboard, both, none"),
        ("1,1,1,1,1,keyboard,yes", "answered while hidden 'yes' is not 0 or 1"),
    ],
)
def test_an_unreadable_signal_is_refused_naming_the_answer(signal, problem):
    with pytest.raises(AnswerFormatError) as caught:
        decode_fields(_fields(signal))
    assert len(caught.value.problems) == 1 and problem in caught.value.problems[0]
