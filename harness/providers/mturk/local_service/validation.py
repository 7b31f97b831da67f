"""Check a request against botocore's own MTurk service model, before any work is done.

Every problem is collected and reported at once, in the wording of AWS's JSON front end:
`2 validation errors detected: Value null at 'title' failed to satisfy constraint: Member must
not be null; Value 'x' at 'hITId' failed to satisfy constraint: Member must have length ...`.
Member paths are lower-camel-cased as AWS does it (`HITId` -> `hITId`, list items
`qualificationRequirements.1.member.comparator`). A member of the wrong JSON type is a
`SerializationException`, as AWS answers it, and so is a number that does not fit the member's
type (an Integer is 32-bit and a Long 64-bit, as in AWS's Java front end) or a timestamp outside
1970-9999. Members the model does not know are ignored, as AWS does.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import botocore.session
from botocore.model import OperationModel, ServiceModel, Shape

from harness.providers.mturk.local_service.api_errors import (
    SerializationException,
    ValidationException,
)
from harness.providers.mturk.local_service.clock import LATEST

BITS = {"integer": 31, "long": 63}


@lru_cache(maxsize=1)
def service_model() -> ServiceModel:
    """botocore's shipped MTurk model (loaded once, on first use)."""
    return botocore.session.get_session().get_service_model("mturk")


def operation_model(name: str) -> OperationModel | None:
    model = service_model()
    return model.operation_model(name) if name in model.operation_names else None


def without_nulls(value: Any) -> Any:
    """``value`` with every member set to JSON ``null`` left out, in objects at any depth: an
    optional member given as null means absent (botocore's model reads it so; a required one
    was refused as null already)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _show(value: Any) -> str:
    return "null" if value is None else f"'{value}'"


class _Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.type_problems: list[str] = []

    def fail(self, value: Any, path: str, constraint: str) -> None:
        self.problems.append(
            f"Value {_show(value)} at '{path}' failed to satisfy constraint: {constraint}"
        )

    def check(self, shape: Shape, value: Any, path: str) -> None:
        kind = shape.type_name
        meta = shape.metadata
        if kind == "structure":
            if not isinstance(value, dict):
                self.type_problems.append(f"Expected an object at '{path or 'input'}'")
                return
            for name in shape.required_members:
                if value.get(name) is None:
                    self.fail(None, self._join(path, name), "Member must not be null")
            for name, member in shape.members.items():
                if value.get(name) is not None:
                    self.check(member, value[name], self._join(path, name))
        elif kind == "list":
            if not isinstance(value, list):
                self.type_problems.append(f"Expected a list at '{path}'")
                return
            self._bounds(len(value), value, path, meta, "length")
            for i, item in enumerate(value, start=1):
                self.check(shape.member, item, f"{path}.{i}.member")
        elif kind == "string":
            if not isinstance(value, str):
                self.type_problems.append(f"Expected a string at '{path}'")
                return
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                self.type_problems.append(f"Invalid UTF-8 (a lone surrogate) at '{path}'")
                return
            self._bounds(len(value), value, path, meta, "length")
            if "pattern" in meta and not re.search(meta["pattern"], value):
                self.fail(
                    value,
                    path,
                    f"Member must satisfy regular expression pattern: {meta['pattern']}",
                )
            enum = getattr(shape, "enum", None) or []
            if enum and value not in enum:
                self.fail(value, path, f"Member must satisfy enum value set: [{', '.join(enum)}]")
        elif kind in ("integer", "long"):
            if isinstance(value, bool) or not isinstance(value, int):
                self.type_problems.append(f"Expected an integer at '{path}'")
                return
            if not -(2 ** BITS[kind]) <= value < 2 ** BITS[kind]:
                self.type_problems.append(
                    f"Numeric value ({value}) out of range of {kind} at '{path}'"
                )
                return
            self._bounds(value, value, path, meta, "value")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self.type_problems.append(f"Expected a boolean at '{path}'")
        elif kind == "timestamp":
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_problems.append(f"Expected epoch seconds at '{path}'")
            elif not 0 <= value <= LATEST:
                self.type_problems.append(
                    f"Timestamp {value} at '{path}' is not between 1970 and 9999"
                )

    def _bounds(self, size: int, value: Any, path: str, meta: dict[str, Any], what: str) -> None:
        if "min" in meta and size < meta["min"]:
            self.fail(
                value, path, f"Member must have {what} greater than or equal to {meta['min']}"
            )
        if "max" in meta and size > meta["max"]:
            self.fail(value, path, f"Member must have {what} less than or equal to {meta['max']}")

    @staticmethod
    def _join(path: str, name: str) -> str:
        return f"{path}.{_camel(name)}" if path else _camel(name)


def validate(operation: OperationModel, params: Any) -> None:
    """Raise SerializationException or ValidationException if `params` breaks the model."""
    checker = _Checker()
    shape = operation.input_shape
    if shape is not None:
        checker.check(shape, params, "")
    if checker.type_problems:
        raise SerializationException("; ".join(checker.type_problems))
    if checker.problems:
        n = len(checker.problems)
        noun = "error" if n == 1 else "errors"
        raise ValidationException(f"{n} validation {noun} detected: " + "; ".join(checker.problems))
