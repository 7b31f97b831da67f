"""Typed errors of harness. Domain code raises these; the CLI turns them into messages in one place.

Every message names where the problem is (file, line, field) and what was expected, so a person
can act on it without reading a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


class HarnessError(Exception):
    """Base of every error harness raises on purpose."""


class InputError(HarnessError):
    """A problem with what the user gave harness (a file, an option, a value): exit code 1."""


@dataclass(frozen=True)
class Problem:
    """One problem found while validating a file: where it is and what is wrong."""

    source: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"


class ValidationError(InputError):
    """Validation found one or more problems; all of them are reported at once."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class SpecError(ValidationError):
    """A task spec has one or more problems."""


class JudgmentsError(InputError):
    """A judgments table (CSV or DataFrame) does not follow the long-table format."""


class DatasetError(InputError):
    """A dataset on disk (e.g. the WS353 distribution) is missing or malformed."""


class StatsError(InputError):
    """The data cannot support the statistic asked for (e.g. no item has two values to pair)."""


class StoreError(HarnessError):
    """The judgment store cannot do what was asked (e.g. database unreachable, not migrated)."""


class PlatformError(HarnessError):
    """The crowd platform refused a request or could not be reached; ``code`` is its error code
    (e.g. MTurk's ``AWS.MechanicalTurk.HitAlreadyExists``), empty when there is none."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


class StudyNotFound(InputError):
    """No study of the given name in the store (the message lists the studies it holds)."""


class LaunchRefused(InputError):
    """A launch guard refused to spend money: over budget, balance too low, not confirmed."""
