"""Read batch-results files into rows that know where they came from (file and line).

Everything wrong with a file's shape is collected, each naming the file, the line and the
column: bytes that are not in the file's encoding, a header without the columns an import
needs or with a column twice, a row with more or fewer cells than the header.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.archives.batch_layout import REQUIRED
from harness.errors import Problem

MAX_FILE_BYTES = 512 * 1024 * 1024
"""A batch-results file larger than this is refused (MTurk's were far smaller)."""


@dataclass(frozen=True)
class BatchRow:
    """One assignment's row: its cells by column, and where it is (file, first line)."""

    source: str
    line: int
    cells: dict[str, str]

    def where(self, column: str, message: str) -> Problem:
        return Problem(self.source, self.line, column, message)


@dataclass(frozen=True)
class BatchFiles:
    """The rows of every file read, in file order, and what was wrong with the files' shape."""

    rows: list[BatchRow]
    problems: list[Problem]


def read_batch_files(paths: Sequence[Path], encoding: str = "utf-8") -> BatchFiles:
    """The rows of the batch-results files ``paths`` (a byte-order mark is skipped)."""
    rows: list[BatchRow] = []
    problems: list[Problem] = []
    for path in paths:
        found, wrong = _read_one(path, encoding)
        rows += found
        problems += wrong
    return BatchFiles(rows, problems)


def _read_one(path: Path, encoding: str) -> tuple[list[BatchRow], list[Problem]]:
    source = str(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return [], [Problem(source, None, "", f"larger than {MAX_FILE_BYTES} bytes")]
        data = path.read_bytes()
    except OSError as exc:
        return [], [Problem(source, None, "", f"cannot be read: {exc.strerror or exc}")]
    text, problem = _decoded(source, data, encoding)
    if problem is not None:
        return [], [problem]
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return [], [Problem(source, 1, "", f"the header is not CSV: {exc}")]
    if not header or all(not h.strip() for h in header):
        return [], [Problem(source, 1, "", "the file is empty: no header row")]
    problems = _header_problems(source, header)
    if problems:
        return [], problems
    rows: list[BatchRow] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(source, start, "", f"not CSV: {exc}"))
            break
        line, start = start, reader.line_num + 1
        if not cells or all(not c.strip() for c in cells):
            continue  # a blank line
        if len(cells) != len(header):
            problems.append(
                Problem(
                    source,
                    line,
                    "",
                    f"{len(cells)} cells where the header has {len(header)} columns",
                )
            )
            continue
        rows.append(BatchRow(source, line, dict(zip(header, cells, strict=True))))
    if not rows and not problems:
        problems.append(Problem(source, None, "", "no assignment rows under the header"))
    return rows, problems


def _decoded(source: str, data: bytes, encoding: str) -> tuple[str, Problem | None]:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start : exc.start + 1].hex()
        return "", Problem(
            source,
            line,
            "",
            f"byte 0x{byte} is not {encoding}: a spreadsheet may have saved the file in "
            "another encoding; use the file as downloaded, or name its encoding with "
            "--encoding (e.g. cp1252)",
        )
    except LookupError:
        return "", Problem(source, None, "", f"unknown encoding {encoding!r}")
    return text.removeprefix("\ufeff"), None


def _header_problems(source: str, header: list[str]) -> list[Problem]:
    if len(header) == 1 and header[0].count(";") >= len(REQUIRED) - 1:
        return [
            Problem(
                source,
                1,
                "",
                "the columns are separated by ';', not ',': a spreadsheet re-saved the file; "
                "use the file as downloaded",
            )
        ]
    problems = []
    seen: set[str] = set()
    for name in header:
        if name in seen:
            problems.append(Problem(source, 1, name, "this column appears twice in the header"))
        seen.add(name)
    missing = [c for c in REQUIRED if c not in seen]
    if missing:
        problems.append(
            Problem(
                source,
                1,
                "",
                f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}: not a "
                "batch-results file as the requester website wrote it",
            )
        )
    return problems
