"""Bounded JSON parsing for request bodies: nesting depth, finite numbers, UTF-8.

Python's json module nests as deep as the input (a 100,000-deep body exhausts the recursion
limit) and accepts NaN, Infinity and 1e400 (read as infinity), none of which is JSON a client
should send or the service should store. Bodies are checked for depth first, with a scan that
skips everything but brackets and strings, then parsed with non-finite numbers refused.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32  # MTurk's deepest input (requirements > locale values > country) is 4
_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


class BodyError(ValueError):
    """A request body that is not bounded, finite JSON; the message says what is wrong."""


def check_depth(text: str) -> None:
    depth, pos = 0, 0
    while True:
        found = _STRUCTURE.search(text, pos)
        if found is None:
            return
        char, pos = found.group(), found.end()
        if char == '"':
            end = _STRING_END.match(text, pos)
            if end is None:
                return  # an unterminated string: json.loads reports it
            pos = end.end()
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise BodyError(f"the JSON body is nested more than {MAX_DEPTH} levels deep")
        else:
            depth -= 1


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyError(f"the number {text} is too large")
    return value


def _no_constant(name: str) -> Any:
    raise BodyError(f"{name} is not a JSON number")


def parse_json(data: bytes | str) -> Any:
    """Parse a request body; BodyError saying why it is refused."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise BodyError(f"the body is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    check_depth(text)
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except BodyError:
        raise
    except (ValueError, RecursionError) as exc:
        raise BodyError(f"the body is not valid JSON: {exc}") from exc


def parse_object(data: bytes) -> dict[str, Any]:
    """Parse a body that must be a JSON object (an empty body is an empty one)."""
    body = parse_json(data) if data else {}
    if not isinstance(body, dict):
        raise BodyError("the body must be a JSON object")
    return body
