"""check_answers on its own: the rules behind the task server's refusals (which
tests/web/test_task_server.py checks through HTTP)."""

from __future__ import annotations

import math

import pytest

from harness.answer import Answer
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan
from harness.render.validation import check_answers
from harness.spec import load_spec
from tests.web.factories import write_task_spec


@pytest.fixture
def rating(tmp_path):
    return Instrument.from_loaded(load_spec(write_task_spec(tmp_path, "rating")))


@pytest.fixture
def likert(tmp_path):
    return Instrument.from_loaded(load_spec(write_task_spec(tmp_path, "likert")))


PLAN = HitPlan(0, ("w1", "w2", "w4"), ("w1",))


def answered(plan, values):
    return [Answer(k, p, v) for p, (k, v) in enumerate(zip(plan.showings, values, strict=True))]


def test_a_complete_set_of_answers_on_the_scale_is_valid(rating):
    assert check_answers(rating, PLAN, answered(PLAN, [0, 10, 3.5, 9.9])) == []


def test_without_a_worker_order_positions_must_each_be_used_once(rating):
    answers = answered(PLAN, [1, 2, 3, 4])
    answers[3] = Answer("w1", 1, 4)
    assert check_answers(rating, PLAN, answers) == [
        "question 2 was answered 2 times; answer it once"
    ]


def test_a_value_that_is_not_finite_is_not_on_the_scale(rating):
    problems = check_answers(rating, PLAN, answered(PLAN, [1, 2, math.nan, 4]))
    assert problems == [
        "question 3 (king – queen): nan is not allowed; enter a number from 0 to 10 with at most "
        "1 decimal"
    ]


def test_a_gate_allows_a_skip_but_not_a_skip_with_a_value(likert):
    plan = HitPlan(0, ("s1", "s2"))
    answers = [Answer("s1", 0, None, skipped=True), Answer("s2", 1, 3.0, skipped=True)]
    assert check_answers(likert, plan, answers) == [
        "question 2 (The chair sang loudly to the moon.): marked as skipped but also answered; "
        "choose one"
    ]


def test_a_repeated_item_needs_both_showings(rating):
    answers = answered(PLAN, [1, 2, 3, 4])[:3]
    assert check_answers(rating, PLAN, answers) == [
        "the item 'cup – mug' has no answer; please answer every item"
    ]
