"""Question XML in (ExternalQuestion, HTMLQuestion, QuestionForm) and QuestionFormAnswers out.

MTurk validates Question against its schemas; this service checks what harness relies on:
well-formed XML, a known root element, ExternalQuestion's `ExternalURL` (https, or http on a
loopback host, which only this local service allows) and `FrameHeight` (an integer, 0 = auto),
HTMLQuestion's `HTMLContent` and `FrameHeight`, and the 65,535-byte limit.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit
from xml.sax.saxutils import escape

from harness.providers.mturk.local_service.api_errors import ParameterValidationError, RequestError

MAX_QUESTION_BYTES = 65535
ANSWERS_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/"
    "2005-10-01/QuestionFormAnswers.xsd"
)
KINDS = ("ExternalQuestion", "HTMLQuestion", "QuestionForm")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class Question:
    kind: str
    external_url: str | None = None
    html: str | None = None
    frame_height: int = 0

    @property
    def uses_crowd_form(self) -> bool:
        return self.html is not None and "<crowd-form" in self.html


def xml_error(detail: str) -> RequestError:
    # MTurk's code and opening words for a Question that fails its schema.
    return RequestError(
        "There was an error parsing the XML question or answer data in your request. Please "
        "make sure the data is well-formed and validates against the appropriate schema. "
        f"Details: {detail}",
        "AWS.MechanicalTurk.XMLParseError",
    )


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(root: ET.Element, name: str) -> str | None:
    for child in root:
        if _local(child.tag) == name:
            return (child.text or "").strip()
    return None


def parse_question(text: str) -> Question:
    """Parse and check a Question parameter; raise RequestError saying what is wrong."""
    if len(text.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise ParameterValidationError(
            f"The Question parameter is {len(text.encode('utf-8')):,} bytes; it must not be "
            f"larger than {MAX_QUESTION_BYTES:,} bytes, including whitespace.",
            "AWS.MechanicalTurk.ParameterValidationError",
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise xml_error(f"the Question is not well-formed XML ({exc})") from exc
    kind = _local(root.tag)
    if kind not in KINDS:
        raise xml_error(f"unknown root element <{kind}>; expected one of {', '.join(KINDS)}")
    if kind == "QuestionForm":
        return Question(kind)
    height_text = _child_text(root, "FrameHeight")
    if height_text is None:
        raise xml_error(f"<{kind}> needs a <FrameHeight> (0 lets the page size itself)")
    try:
        height = int(height_text)
    except ValueError as exc:
        raise xml_error(f"<FrameHeight> must be an integer, got {height_text!r}") from exc
    if kind == "ExternalQuestion":
        url = _child_text(root, "ExternalURL")
        if not url:
            raise xml_error("<ExternalQuestion> needs an <ExternalURL>")
        parts = urlsplit(url)
        local_http = parts.scheme == "http" and parts.hostname in LOOPBACK
        if parts.scheme != "https" and not local_http:
            raise xml_error(
                f"<ExternalURL> must be an https URL (http is allowed on loopback only): {url}"
            )
        return Question(kind, external_url=url, frame_height=height)
    html = _child_text(root, "HTMLContent")
    if not html:
        raise xml_error("<HTMLQuestion> needs an <HTMLContent>")
    return Question(kind, html=html, frame_height=height)


def external_url_for(
    question: Question, assignment_id: str, hit_id: str, worker_id: str | None, submit_to: str
) -> str:
    """The ExternalURL with the query parameters MTurk appends (preview: no worker id)."""
    assert question.external_url is not None
    params = {"assignmentId": assignment_id, "hitId": hit_id}
    if worker_id is not None:
        params["turkSubmitTo"] = submit_to
        params["workerId"] = worker_id
    sep = "&" if "?" in question.external_url else "?"
    return f"{question.external_url}{sep}{urlencode(params)}"


MTURK_PARAMS = frozenset({"assignmentId", "workerId", "hitId", "turkSubmitTo"})
"""What MTurk itself gives a task page: never an answer, even when a form posts it back."""


def answers_for(crowd_form: bool, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The answers a submitted form becomes: crowd-form (`Question.uses_crowd_form`) gives one
    `taskAnswers` JSON array, any other question one answer per field."""
    fields = [(k, v) for k, v in fields if k not in MTURK_PARAMS]
    if crowd_form:
        merged: dict[str, str] = {}
        for key, value in fields:
            merged.setdefault(key, value)
        return [("taskAnswers", json.dumps([merged]))]
    return fields


def answer_xml(answers: list[tuple[str, str]]) -> str:
    """QuestionFormAnswers XML with one FreeText answer per (identifier, value)."""
    parts = [f'<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="{ANSWERS_NS}">']
    for identifier, value in answers:
        parts.append(
            f"<Answer><QuestionIdentifier>{escape(identifier)}</QuestionIdentifier>"
            f"<FreeText>{escape(value)}</FreeText></Answer>"
        )
    parts.append("</QuestionFormAnswers>")
    # Declared ASCII, as MTurk does: other characters become character references.
    return "".join(parts).encode("ascii", "xmlcharrefreplace").decode("ascii")
