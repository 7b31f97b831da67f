"""Read a YAML file and remember the line of every key, so errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import Problem, SpecError

PathKey = tuple[str | int, ...]


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
        dotted = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in key).replace(
            ".[", "["
        )
        return Problem(str(self.path), self.line_of(key), dotted, message)


def read_yaml(path: Path) -> YamlSource:
    """Parse ``path``; a missing file or a YAML syntax error becomes a located `SpecError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([Problem(str(path), None, "", f"cannot read the spec ({exc})")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError([Problem(str(path), line, "", f"not valid YAML: {reason}")]) from None
    source = YamlSource(path=path, data=data)
    if node is not None:
        source.lines[()] = node.start_mark.line + 1
        _walk(node, (), source.lines)
    return source


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
