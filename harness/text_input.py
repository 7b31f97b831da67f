"""Bytes a person gave harness as text (a task spec, a judgments CSV), checked before parsing:
UTF-8 throughout, and no character the format cannot hold, each offender named by its line and
column. Parsers report such bytes without a line, or not at all (pandas reads a NUL as the end of
a line, PyYAML names a character position)."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_REPORTED = 5
"""Bad bytes or characters reported one by one before "... and N more"."""

_NAMES = {0: "NUL", 0x1B: "ESC", 0x7F: "DEL", 0x08: "backspace", 0x0C: "form feed"}


@dataclass(frozen=True)
class TextProblem:
    """One bad byte or character: its 1-based line (None for a summary) and what is wrong."""

    line: int | None
    message: str


class NotText(ValueError):
    """The bytes are not acceptable text; ``problems`` says where and why."""

    def __init__(self, problems: list[TextProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


def decode_utf8(data: bytes) -> str:
    """UTF-8 text (a leading byte order mark dropped), or `NotText` naming each byte that is
    not UTF-8 by line and column."""
    problems: list[TextProblem] = []
    pieces: list[str] = []
    pos = 0
    while True:
        try:
            pieces.append(data[pos:].decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            start = pos + exc.start
            pieces.append(data[pos:start].decode("utf-8"))
            problems.append(
                TextProblem(
                    data.count(b"\n", 0, start) + 1,
                    f"byte 0x{data[start]:02x} at column {column(data, start)} is not UTF-8; "
                    "save the file as UTF-8",
                )
            )
            pos = pos + max(exc.end, exc.start + 1)
    if problems:
        raise NotText(capped(problems, "bytes that are not UTF-8"))
    return "".join(pieces).removeprefix("\ufeff")


def check_characters(text: str, refused: re.Pattern[str], what: str) -> None:
    """`NotText` naming every character ``refused`` matches by line and column; ``what`` says
    what kind of file cannot hold them (e.g. "a task spec is plain text")."""
    problems = []
    for found in refused.finditer(text):
        code = ord(found.group())
        name = f"U+{code:04X}" + (f" ({_NAMES[code]})" if code in _NAMES else "")
        problems.append(
            TextProblem(
                text.count("\n", 0, found.start()) + 1,
                f"control character {name} at column {column(text, found.start())}; {what}: "
                "remove it",
            )
        )
    if problems:
        raise NotText(capped(problems, "control characters"))


def column(text: str | bytes, index: int) -> int:
    """The 1-based column of ``index`` in its line."""
    if isinstance(text, bytes):
        return index - text.rfind(b"\n", 0, index)
    return index - text.rfind("\n", 0, index)


def capped(problems: list[TextProblem], what: str) -> list[TextProblem]:
    """The first `MAX_REPORTED` problems, and a line counting the rest."""
    if len(problems) <= MAX_REPORTED:
        return problems
    more = len(problems) - MAX_REPORTED
    return [*problems[:MAX_REPORTED], TextProblem(None, f"... and {more} more {what}")]
