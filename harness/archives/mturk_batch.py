"""Batch-results rows into checked assignments of one study, every problem located.

Two kinds of problem. A file's (its shape, a column the mapping names and the file lacks, a
row of another HIT type than the first row's) refuses the whole import. A row's (an id
missing, a status or time the website never wrote, an answer naming no item of the spec or off
its scale, an assignment given twice with different contents, a row whose items differ from
its HIT's other rows) keeps that row out; the caller refuses the import, or stores the rest
and keeps the bad rows aside, as asked. An assignment given twice with the same contents (the
same batch downloaded twice) is one assignment: its final status (approved or rejected) wins
over submitted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from harness.answer import Answer
from harness.archives.batch_file import BatchFiles, BatchRow
from harness.archives.batch_layout import (
    ANSWER,
    INPUT,
    STATUSES,
    TASK_ANSWERS,
    TimeFormatError,
    parse_time,
)
from harness.archives.mapping import BatchMapping, ItemFinder, RowError, row_answers
from harness.errors import Problem
from harness.spec import LoadedSpec
from harness.spec.study_types import definition

MAX_ID = 200
"""The longest platform id the store keeps."""
_FINAL = ("Approved", "Rejected")


@dataclass(frozen=True)
class BatchAssignment:
    """One assignment of the batch, checked: ready to be stored."""

    row: BatchRow
    hit_id: str
    assignment_id: str
    worker_id: str
    status: str  # one of STATUSES
    accepted_at: datetime
    submitted_at: datetime
    answers: tuple[Answer, ...]


@dataclass(frozen=True)
class BadRow:
    """A row kept out, with every problem found in it."""

    row: BatchRow
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class Batch:
    """A batch read and checked: its HIT type, its assignments (one per assignment id, in file
    order), each HIT's showings (item keys by position, as its rows answer them), the rows
    kept out, the file problems (any refuses the import) and how many rows repeated another."""

    hit_type_id: str
    assignments: list[BatchAssignment]
    showings: dict[str, list[str]]
    bad_rows: list[BadRow]
    file_problems: list[Problem]
    repeated: int

    @property
    def problems(self) -> list[Problem]:
        return [*self.file_problems, *(p for bad in self.bad_rows for p in bad.problems)]


def read_batch(files: BatchFiles, loaded: LoadedSpec, mapping: BatchMapping | None) -> Batch:
    """Check every row of ``files`` against ``loaded``'s instrument through ``mapping`` (None:
    harness's own fields); see the module docstring."""
    unmapped = _mapping_columns(files.rows, mapping)
    if unmapped:  # every row would say the same
        return Batch("", [], {}, [], [*files.problems, *unmapped], 0)
    file_problems = list(files.problems)
    hit_type = files.rows[0].cells["HITTypeId"].strip() if files.rows else ""
    first = files.rows[0] if files.rows else None
    finder = ItemFinder.of(loaded.items, mapping)
    good: list[BatchAssignment] = []
    bad: list[BadRow] = []
    for row in files.rows:
        other = row.cells["HITTypeId"].strip()
        if other != hit_type and first is not None:
            file_problems.append(
                row.where(
                    "HITTypeId",
                    f"{other[:40]!r} differs from {hit_type!r} ({first.source}:{first.line}): "
                    "one import is one HIT type; import each HIT type as its own study",
                )
            )
            continue
        checked = _checked(row, loaded, mapping, finder)
        if isinstance(checked, BadRow):
            bad.append(checked)
        else:
            good.append(checked)
    kept, contradicted, repeated = _one_per_assignment(good)
    bad += contradicted
    kept, showings, uneven = _even_hits(kept)
    bad += uneven
    bad.sort(key=lambda b: (b.row.source, b.row.line))
    return Batch(hit_type, kept, showings, bad, file_problems, repeated)


def _mapping_columns(rows: Sequence[BatchRow], mapping: BatchMapping | None) -> list[Problem]:
    """A file without a column the mapping names (and without a crowd form's answers, which
    may hold it), or without harness's own fields when there is no mapping: a problem at the
    file's header."""
    problems = []
    seen: set[str] = set()
    for row in rows:
        if row.source in seen:
            continue
        seen.add(row.source)
        columns = set(row.cells)
        if mapping is None:
            if not {f"{ANSWER}item-0", TASK_ANSWERS} & columns:
                problems.append(
                    Problem(
                        row.source,
                        1,
                        "",
                        "no Answer.item-0 column: these are not harness's task pages; give "
                        "the spec an imports.mturk_batch mapping (or --item and --value)",
                    )
                )
            continue
        for n in range(1, mapping.per_row + 1):
            items, value = mapping.columns(n)
            answers = list(mapping.choice_fields(n)) if mapping.choices else [value]
            wanted = items + ([] if TASK_ANSWERS in columns else answers)
            for name in wanted:
                if name not in columns:
                    problems.append(
                        Problem(
                            row.source,
                            1,
                            name,
                            "the mapping names this column; the file has no such column",
                        )
                    )
    return problems


def _checked(
    row: BatchRow, loaded: LoadedSpec, mapping: BatchMapping | None, finder: ItemFinder
) -> BatchAssignment | BadRow:
    cells = row.cells
    problems: list[Problem] = []
    ids = {}
    for column in ("HITId", "AssignmentId", "WorkerId"):
        text = cells[column].strip()
        if not text:
            problems.append(row.where(column, "empty"))
        elif len(text) > MAX_ID or not text.isprintable() or any(c.isspace() for c in text):
            problems.append(row.where(column, f"{text[:40]!r} is not a platform id"))
        ids[column] = text
    status = cells["AssignmentStatus"].strip()
    if status not in STATUSES:
        problems.append(
            row.where("AssignmentStatus", f"{status[:40]!r} is not one of {', '.join(STATUSES)}")
        )
    times = {}
    for column in ("AcceptTime", "SubmitTime"):
        try:
            times[column] = parse_time(cells[column])
        except TimeFormatError as exc:
            problems.append(row.where(column, str(exc)))
    if len(times) == 2 and times["SubmitTime"] < times["AcceptTime"]:
        problems.append(row.where("SubmitTime", "before AcceptTime"))
    work = cells["WorkTimeInSeconds"].strip()
    if not (work.isascii() and work.isdigit()):
        problems.append(row.where("WorkTimeInSeconds", f"{work[:40]!r} is not whole seconds"))
    answers: list[Answer] = []
    try:
        answers = row_answers(cells, mapping, finder)
    except RowError as exc:
        problems += [row.where(column, message) for column, message in exc.problems]
    problems += _off_scale(row, loaded, finder.keys, answers, mapping)
    if problems:
        return BadRow(row, tuple(problems))
    return BatchAssignment(
        row,
        ids["HITId"],
        ids["AssignmentId"],
        ids["WorkerId"],
        status,
        times["AcceptTime"],
        times["SubmitTime"],
        tuple(answers),
    )


def _off_scale(
    row: BatchRow,
    loaded: LoadedSpec,
    keys: frozenset[str],
    answers: Sequence[Answer],
    mapping: BatchMapping | None,
) -> list[Problem]:
    kind = definition(loaded.spec.type)
    may_skip = loaded.scale.skip or loaded.spec.scale.gate is not None
    problems = []
    for a in answers:
        column = _value_column(mapping, a)
        if a.item_key not in keys:  # only harness's own fields name items unchecked
            where = f"{ANSWER}item-{a.position}"
            problems.append(row.where(where, f"{a.item_key[:80]!r} is not an item of the spec"))
        elif a.value is None and not (a.skipped and may_skip):
            problems.append(row.where(column, "no answer, and this spec's scale has no skip"))
        elif a.value is not None and not kind.accepts(loaded.scale, a.value):
            problems.append(
                row.where(column, f"{a.value:g} is not on the scale ({loaded.scale.describe()})")
            )
    return problems


def _value_column(mapping: BatchMapping | None, answer: Answer) -> str:
    if mapping is None:
        return f"{ANSWER}value-{answer.position}"
    return mapping.columns(answer.position + 1)[1]


def _contents(a: BatchAssignment) -> tuple[object, ...]:
    """What two rows of one assignment must agree on (status and review times may move on
    between two downloads)."""
    cells = a.row.cells
    kept = sorted((k, v) for k, v in cells.items() if k.startswith((INPUT, ANSWER)))
    return (a.hit_id, a.worker_id, a.accepted_at, a.submitted_at, tuple(kept))


def _one_per_assignment(
    rows: list[BatchAssignment],
) -> tuple[list[BatchAssignment], list[BadRow], int]:
    by_id: dict[str, list[BatchAssignment]] = defaultdict(list)
    for a in rows:
        by_id[a.assignment_id].append(a)
    kept: list[BatchAssignment] = []
    bad: list[BadRow] = []
    repeated = 0
    for assignment_id, group in by_id.items():
        finals = {a.status for a in group if a.status in _FINAL}
        if len({_contents(a) for a in group}) > 1 or len(finals) > 1:
            where = ", ".join(f"{a.row.source}:{a.row.line}" for a in group)
            what = "statuses" if len({_contents(a) for a in group}) == 1 else "contents"
            bad += [
                BadRow(
                    a.row,
                    (
                        a.row.where(
                            "AssignmentId",
                            f"assignment {assignment_id} is given {len(group)} times with "
                            f"different {what} ({where}); which is right cannot be told",
                        ),
                    ),
                )
                for a in group
            ]
            continue
        repeated += len(group) - 1
        kept.append(next((a for a in group if a.status in _FINAL), group[0]))
    return kept, bad, repeated


def _even_hits(
    rows: list[BatchAssignment],
) -> tuple[list[BatchAssignment], dict[str, list[str]], list[BadRow]]:
    """Each HIT's showings (its first row's items by position), and the rows whose items
    differ from them, kept out (the HIT showed every worker the same items)."""
    showings: dict[str, list[str]] = {}
    first: dict[str, BatchAssignment] = {}
    kept: list[BatchAssignment] = []
    bad: list[BadRow] = []
    for a in rows:
        items = [x.item_key for x in sorted(a.answers, key=lambda x: x.position)]
        if a.hit_id not in showings:
            showings[a.hit_id], first[a.hit_id] = items, a
        elif Counter(items) != Counter(showings[a.hit_id]):
            other = first[a.hit_id].row
            message = (
                f"answers items {sorted(items)[:6]} where the other rows of HIT {a.hit_id} "
                f"({other.source}:{other.line}) answer {sorted(showings[a.hit_id])[:6]}"
            )
            bad.append(BadRow(a.row, (a.row.where("HITId", message),)))
            continue
        kept.append(a)
    return kept, showings, bad
