"""The platform's question documents for a HIT: ExternalQuestion (harness serves the page) and
HTMLQuestion (the platform hosts a self-contained page). Schemas as MTurk defines them."""

from __future__ import annotations

from xml.sax.saxutils import escape

EXTERNAL_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/"
    "ExternalQuestion.xsd"
)
HTML_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
)
MAX_QUESTION_BYTES = 65535
"""MTurk refuses a Question parameter larger than this."""


class QuestionTooLarge(ValueError):
    """The question document exceeds MTurk's 65,535-byte limit."""


def external_question_xml(url: str) -> str:
    """ExternalQuestion XML pointing at ``url`` (MTurk appends its query parameters)."""
    return _checked(
        f'<ExternalQuestion xmlns="{EXTERNAL_NS}"><ExternalURL>{escape(url)}</ExternalURL>'
        "<FrameHeight>0</FrameHeight></ExternalQuestion>"
    )


def html_question_xml(html: str) -> str:
    """HTMLQuestion XML wrapping a whole HTML document in CDATA (``]]>`` split safely)."""
    content = html.replace("]]>", "]]]]><![CDATA[>")
    return _checked(
        f'<HTMLQuestion xmlns="{HTML_NS}"><HTMLContent><![CDATA[{content}]]></HTMLContent>'
        "<FrameHeight>0</FrameHeight></HTMLQuestion>"
    )


def _checked(xml: str) -> str:
    size = len(xml.encode("utf-8"))
    if size > MAX_QUESTION_BYTES:
        raise QuestionTooLarge(
            f"the question document is {size:,} bytes; MTurk accepts at most "
            f"{MAX_QUESTION_BYTES:,}: use fewer items per HIT or external hosting"
        )
    return xml
