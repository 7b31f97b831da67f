"""Parse YAML with bounds, so that no file can crash or hang the spec loader.

PyYAML as it comes trusts its input: an alias bomb (nine anchors, each a list of nine aliases of
the one before) expands to 387 million values and runs for hours; 5,000 nested brackets exhaust
Python's recursion limit; and a byte that is not UTF-8, a NUL or an escape character is
reported without a line. Here:

- the bytes must be UTF-8 and every character printable (YAML's own rule), each offender
  reported with its line and column;
- nesting is limited to `MAX_DEPTH` levels, counted while composing (before Python recurses);
- aliases are allowed, but the document with every alias expanded must stay within
  `MAX_NODES` values and `MAX_DEPTH` levels, and an alias may not refer to a node that
  contains it; this is measured on the node graph in linear time, before anything is built;
- a value the constructor cannot build (a date like 2024-13-45, an integer of 5,000 digits)
  is reported at its line instead of raising a bare ValueError.

Every refusal is a `YamlProblem` with the 1-based line and, where known, the key path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from harness import text_input
from harness.text_input import NotText, decode_utf8

MAX_BYTES = 1_000_000
"""A task spec is a page of settings; items and long guidelines live in their own files."""
MAX_DEPTH = 40
"""The shipped specs nest 4 levels deep."""
MAX_NODES = 100_000
"""Values in the document with every alias expanded (the shipped specs hold under 100)."""
PathKey = tuple[str | int, ...]

# YAML 1.1's printable characters (what PyYAML's reader accepts), and their complement.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


@dataclass(frozen=True)
class YamlProblem:
    """One reason a YAML text is refused: where (1-based line, key path) and what."""

    line: int | None
    key: PathKey
    message: str


class YamlRefused(Exception):
    """The text is not bounded, well-formed YAML; ``problems`` says where and why."""

    def __init__(self, problems: list[YamlProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


def decode(data: bytes) -> str:
    """UTF-8 text (a leading byte order mark dropped), or `YamlRefused` naming each byte that
    is not UTF-8 by line and column."""
    try:
        return decode_utf8(data)
    except NotText as exc:
        raise YamlRefused([YamlProblem(p.line, (), p.message) for p in exc.problems]) from None


def check_characters(text: str) -> None:
    """`YamlRefused` naming every control character (NUL, ESC, ...) by line and column."""
    try:
        text_input.check_characters(text, _NOT_PRINTABLE, "a task spec is plain text")
    except NotText as exc:
        raise YamlRefused([YamlProblem(p.line, (), p.message) for p in exc.problems]) from None


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that stops composing past `MAX_DEPTH` levels, remembers the key
    path of every node, and reports a value it cannot construct at its line."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.path: list[str | int | None] = []
        self.paths: dict[int, PathKey] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if parent is None:
            label: str | int | None = None
        elif isinstance(index, yaml.ScalarNode):
            label = str(index.value)
        else:
            label = index if isinstance(index, int) else None
        self.path.append(label)
        try:
            if len(self.path) > MAX_DEPTH:
                raise YamlRefused(
                    [
                        YamlProblem(
                            # types-PyYAML leaves Parser.peek_event unannotated
                            self.peek_event().start_mark.line + 1,  # type: ignore[no-untyped-call]
                            self.key()[:3],
                            f"nested more than {MAX_DEPTH} levels deep; a task spec needs a "
                            "few levels",
                        )
                    ]
                )
            node = super().compose_node(parent, index)
            self.paths.setdefault(id(node), self.key())
            return node
        finally:
            self.path.pop()

    def key(self) -> PathKey:
        return tuple(k for k in self.path if k is not None)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            if isinstance(exc, yaml.YAMLError):
                raise
            raise YamlRefused(
                [
                    YamlProblem(
                        node.start_mark.line + 1,
                        self.paths.get(id(node), ()),
                        f"cannot read the value {short_repr(node.value)}: {exc}",
                    )
                ]
            ) from None


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)``, a long text cut to its first ``limit`` characters and "..."."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit] + "...")
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load(text: str) -> tuple[Any, yaml.Node | None]:
    """The data of a single-document YAML text and its node graph (for lines), within the
    bounds above; `YamlRefused` or `yaml.YAMLError` (with its mark) when it is not."""
    check_characters(text)
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_expansion(node, loader.paths)
        return loader.construct_document(node), node
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node, paths: dict[int, PathKey]) -> None:
    """Refuse a graph whose expansion (every alias replaced by what it names) holds more than
    `MAX_NODES` values or `MAX_DEPTH` levels, or that contains itself. Each node is measured
    once (sizes are memoized), so an alias bomb costs as little as it looks."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]

    def refuse(node: yaml.Node, message: str) -> YamlRefused:
        line = node.start_mark.line + 1
        return YamlRefused([YamlProblem(line, paths.get(id(node), ()), message)])

    while stack:
        node, finished = stack.pop()
        ident = id(node)
        if finished:
            on_path.discard(ident)
            kids = _children(node)
            size[ident] = 1 + sum(size[id(k)] for k in kids)
            depth[ident] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[ident] > MAX_NODES:
                raise refuse(
                    node,
                    f"with its aliases expanded this value holds more than {MAX_NODES:,} "
                    "values (an alias bomb?); write it out, or use fewer aliases",
                )
            if depth[ident] > MAX_DEPTH:
                raise refuse(
                    node,
                    f"with its aliases expanded this value is nested more than {MAX_DEPTH} "
                    "levels deep",
                )
            continue
        if ident in size:
            continue
        on_path.add(ident)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in on_path:
                raise refuse(kid, "this value holds an alias of itself (a loop)")
            if id(kid) not in size:
                stack.append((kid, False))
