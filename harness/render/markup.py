"""Guidelines text (plain text or simple Markdown) as safe HTML for a task page.

Only what guidelines use: ``#`` headings, paragraphs (hard-wrapped lines joined), ``-``/``*``
bullets, ``1.``/``1)`` numbered lines, ``**bold**`` and ``*emphasis*``. Everything is escaped
first, so a guideline can never inject markup into a worker's page.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_RULE = re.compile(r"^\s*([-=_*])\1{2,}\s*$")


def guidelines_html(text: str) -> Markup:
    """The guidelines as HTML blocks; a heading level 1 becomes ``h3`` (the page owns h1/h2)."""
    blocks: list[str] = []
    paragraph: list[str] = []
    list_kind: str | None = None
    entries: list[list[str]] = []

    def close_paragraph() -> None:
        if paragraph:
            blocks.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()

    def close_list() -> None:
        nonlocal list_kind
        if list_kind is not None:
            lis = "".join(f"<li>{_inline(' '.join(e))}</li>" for e in entries)
            blocks.append(f"<{list_kind}>{lis}</{list_kind}>")
            entries.clear()
            list_kind = None

    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or _RULE.match(line):
            close_paragraph()
            close_list()
            continue
        heading = _HEADING.match(line)
        bullet = _BULLET.match(line)
        numbered = _NUMBERED.match(line)
        if heading:
            close_paragraph()
            close_list()
            level = min(len(heading[1]) + 2, 6)
            blocks.append(f"<h{level}>{_inline(heading[2])}</h{level}>")
        elif bullet or numbered:
            close_paragraph()
            kind = "ul" if bullet else "ol"
            if list_kind != kind:
                close_list()
                list_kind = kind
            entries.append([(bullet or numbered)[1]])  # type: ignore[index]
        elif list_kind is not None and raw[:1].isspace():
            entries[-1].append(line.strip())  # a wrapped list entry
        else:
            close_list()
            paragraph.append(line.strip())
    close_paragraph()
    close_list()
    return Markup("\n".join(blocks))


def _inline(text: str) -> str:
    out = str(escape(text))
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return out
