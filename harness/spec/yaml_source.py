"""Read a YAML file (within `bounded_yaml`'s limits) and remember the line of every key, so
errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import Problem, SpecError
from harness.spec.bounded_yaml import MAX_BYTES, PathKey, YamlRefused, decode, load


@dataclass
class YamlSource:
    """A parsed YAML document with the 1-based line of each key path (``("scale", "min")``)."""

    path: Path
    data: Any
    lines: dict[PathKey, int] = field(default_factory=dict)

    def line_of(self, key: PathKey) -> int | None:
        """The line of ``key``, or of its nearest ancestor that has one."""
        key = tuple(key)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), 1)

    def problem(self, key: PathKey, message: str) -> Problem:
        """A problem located at ``key`` in this file."""
        return Problem(str(self.path), self.line_of(key), dotted(key), message)


def read_yaml(path: Path) -> YamlSource:
    """Parse ``path`` within `bounded_yaml`'s limits; a missing file, bytes that are not UTF-8,
    a control character, a YAML syntax error or a limit passed becomes a located `SpecError`."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SpecError(
                [
                    Problem(
                        str(path),
                        None,
                        "",
                        f"the file is {size:,} bytes; a task spec is at most {MAX_BYTES:,} "
                        "(items and long guidelines belong in their own files)",
                    )
                ]
            )
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError([Problem(str(path), None, "", f"cannot read the spec ({exc})")]) from None
    try:
        text = decode(data)
        parsed, node = load(text)
    except YamlRefused as exc:
        raise SpecError(
            [Problem(str(path), p.line, dotted(p.key), p.message) for p in exc.problems]
        ) from None
    except yaml.YAMLError as exc:
        raise SpecError([_syntax_problem(path, text, exc)]) from None
    source = YamlSource(path=path, data=parsed)
    if node is not None:
        source.lines[()] = node.start_mark.line + 1
        _walk(node, (), source.lines)
    return source


def dotted(key: PathKey) -> str:
    """A key path as the field of a message: ``scale.labels``, ``controls[0].seed``."""
    return ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in key).replace(".[", "[")


def _syntax_problem(path: Path, text: str, exc: yaml.YAMLError) -> Problem:
    """A YAML error with its line: from its mark, or from the character position a reader
    error gives."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        line: int | None = mark.line + 1
    elif isinstance(getattr(exc, "position", None), int):
        line = text.count("\n", 0, exc.position) + 1  # type: ignore[attr-defined]
    else:
        line = None
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None)
    context = getattr(exc, "context", None)
    reason = ", ".join(filter(None, [context, problem])) if problem else str(exc)
    return Problem(str(path), line, "", f"not valid YAML: {reason}")


def _walk(node: yaml.Node, key: PathKey, lines: dict[PathKey, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = (*key, str(key_node.value))
            lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*key, index)
            lines[child] = item.start_mark.line + 1
            _walk(item, child, lines)
