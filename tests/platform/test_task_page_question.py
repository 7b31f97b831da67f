"""A study link and Prolific publish the same question: the address of the HIT's task page on
harness's server, from one shared function."""

from __future__ import annotations

import pytest

from harness.platform.registry import platform_named
from harness.platform.task_page_question import task_page_question
from harness.render.plan import HitPlan

PLAN = HitPlan(7, ("a", "b"), ("a",))


@pytest.mark.parametrize("name", ["link", "prolific"])
def test_the_question_is_the_hits_task_page_on_the_public_url(name):
    platform = platform_named(name)
    url = "https://tasks.example.org/"
    question = platform.question(
        None,
        PLAN,
        hosting="external",
        public_url=url,
        study_name="ws353",
        target="production",
        endpoint_url=None,
    )
    assert question == "https://tasks.example.org/hit/ws353-007"


def test_both_platforms_share_one_function():
    assert type(platform_named("link")).question is task_page_question
    assert type(platform_named("prolific")).question is task_page_question


def test_without_a_public_url_the_address_is_relative_to_the_server():
    assert (
        task_page_question(None, None, PLAN, hosting="external", public_url=None, study_name="s")
        == "/hit/s-007"
    )
