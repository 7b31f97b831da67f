"""Question documents that the local MTurk service (MTurk's rules) accepts."""

from __future__ import annotations

import pytest

from harness.providers.mturk.local_service.questions import parse_question
from harness.render.question import QuestionTooLarge, external_question_xml, html_question_xml


def test_an_external_question_points_at_the_task_page():
    question = parse_question(external_question_xml("https://example.org/hit/s-000?a=1&b=2"))
    assert question.kind == "ExternalQuestion"
    assert question.external_url == "https://example.org/hit/s-000?a=1&b=2"
    assert question.frame_height == 0  # 0: MTurk sizes the frame itself


def test_an_html_question_keeps_the_document_even_with_a_cdata_terminator():
    html = "<!DOCTYPE html><html><body><script>var s = 'a]]>b';</script></body></html>"
    question = parse_question(html_question_xml(html))
    assert question.kind == "HTMLQuestion"
    assert question.html == html


def test_a_question_over_mturks_size_limit_is_refused_with_advice():
    with pytest.raises(QuestionTooLarge, match="fewer items per HIT"):
        html_question_xml("x" * 70_000)
