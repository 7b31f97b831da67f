"""The requester website's batch-results layout (``Batch_<id>_batch_results.csv``), both ways.

One row per submitted assignment. Its columns, in the website's order (docs/archives.md says
what each holds): the HIT's (`HIT_COLUMNS`), the assignment's (`ASSIGNMENT_COLUMNS`), then one
``Input.<name>`` column per variable of the batch's input file, one ``Answer.<name>`` column per
answer field, and ``Approve`` and ``Reject`` (left empty; the website read them back when a
requester uploaded decisions). Every cell is quoted. Times are written as the website showed
them, in US Pacific time with its abbreviation (``Wed Jan 20 08:26:05 PST 2021``); money as
``$0.10``; approval rates as ``100% (12/12)``. A crowd-html-elements form (``<crowd-form>``)
answers in one column, ``Answer.taskAnswers``: a JSON array holding one object of the form's
fields.
"""

from __future__ import annotations

import csv
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

HIT_COLUMNS = (
    "HITId",
    "HITTypeId",
    "Title",
    "Description",
    "Keywords",
    "Reward",
    "CreationTime",
    "MaxAssignments",
    "RequesterAnnotation",
    "AssignmentDurationInSeconds",
    "AutoApprovalDelayInSeconds",
    "Expiration",
    "NumberOfSimilarHITs",
    "LifetimeInSeconds",
)
ASSIGNMENT_COLUMNS = (
    "AssignmentId",
    "WorkerId",
    "AssignmentStatus",
    "AcceptTime",
    "SubmitTime",
    "AutoApprovalTime",
    "ApprovalTime",
    "RejectionTime",
    "RequesterFeedback",
    "WorkTimeInSeconds",
    "LifetimeApprovalRate",
    "Last30DaysApprovalRate",
    "Last7DaysApprovalRate",
)
DECISION_COLUMNS = ("Approve", "Reject")
REQUIRED = (
    "HITId",
    "HITTypeId",
    "AssignmentId",
    "WorkerId",
    "AssignmentStatus",
    "AcceptTime",
    "SubmitTime",
    "WorkTimeInSeconds",
)
"""The columns an import cannot do without (the others are kept when present)."""
INPUT, ANSWER = "Input.", "Answer."
TASK_ANSWERS = "Answer.taskAnswers"
"""A crowd-html-elements form's one answer column."""
STATUSES = ("Submitted", "Approved", "Rejected")
"""The statuses an assignment of a batch-results file has."""

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_OFFSETS = {"PST": -8, "PDT": -7, "UTC": 0, "GMT": 0}
_TIME = re.compile(
    r"(?P<wd>[A-Z][a-z]{2}) (?P<mon>[A-Z][a-z]{2}) (?P<day>\d{2}) "
    r"(?P<h>\d{2}):(?P<m>\d{2}):(?P<s>\d{2}) (?P<tz>[A-Z]{3}) (?P<year>\d{4})",
    re.ASCII,
)
EXAMPLE_TIME = "Wed Jan 20 08:26:05 PST 2021"


class TimeFormatError(ValueError):
    """A cell that is not a time as the requester website wrote it."""


def format_time(moment: datetime | None) -> str:
    """``moment`` as the website wrote times: US Pacific, ``Wed Jan 20 08:26:05 PST 2021``."""
    if moment is None:
        return ""
    utc = moment.astimezone(UTC)
    summer = _pacific_summer(utc)
    local = utc + timedelta(hours=-7 if summer else -8)
    return (
        f"{_WEEKDAYS[local.weekday()]} {_MONTHS[local.month - 1]} {local:%d %H:%M:%S} "
        f"{'PDT' if summer else 'PST'} {local.year}"
    )


def parse_time(text: str) -> datetime:
    """A time the website wrote (any of PST, PDT, UTC, GMT), as UTC; `TimeFormatError` for
    anything else, such as a spreadsheet's rewriting of it (``1/20/2021 8:26``) or a weekday
    that does not fall on the date."""
    match = _TIME.fullmatch(text.strip())
    if match is None or match["mon"] not in _MONTHS or match["tz"] not in _OFFSETS:
        raise TimeFormatError(
            f"{text[:40]!r} is not a time as the requester website wrote it (like "
            f"{EXAMPLE_TIME!r}); a spreadsheet may have rewritten it: use the file as "
            "downloaded"
        )
    try:
        local = datetime(
            int(match["year"]),
            _MONTHS.index(match["mon"]) + 1,
            int(match["day"]),
            int(match["h"]),
            int(match["m"]),
            int(match["s"]),
        )
    except ValueError as exc:
        raise TimeFormatError(f"{text[:40]!r} is not a date: {exc}") from exc
    if _WEEKDAYS[local.weekday()] != match["wd"]:
        raise TimeFormatError(
            f"{text[:40]!r}: {local:%Y-%m-%d} is a {_WEEKDAYS[local.weekday()]}, not a "
            f"{match['wd']}; the date was changed after the download"
        )
    return (local - timedelta(hours=_OFFSETS[match["tz"]])).replace(tzinfo=UTC)


def _pacific_summer(utc: datetime) -> bool:
    """Whether US Pacific time keeps daylight saving at ``utc`` (the rule since 2007: from the
    second Sunday of March, 2:00 PST, to the first Sunday of November, 2:00 PDT)."""
    year = utc.year
    start = _nth_sunday(year, 3, 2) + timedelta(hours=2 + 8)
    end = _nth_sunday(year, 11, 1) + timedelta(hours=2 + 7)
    naive = utc.replace(tzinfo=None)
    return start <= naive < end


def _nth_sunday(year: int, month: int, n: int) -> datetime:
    first = datetime(year, month, 1)
    return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))


def format_money(amount: object) -> str:
    return f"${amount}"


def answer_columns(answer_xml: str) -> dict[str, str]:
    """An assignment's answer (MTurk's QuestionFormAnswers XML) as the website's ``Answer.*``
    cells: each ``FreeText`` answer its own column, a crowd form's ``taskAnswers`` JSON as it
    came."""
    root = ET.fromstring(answer_xml)
    cells: dict[str, str] = {}
    for answer in root:
        if _local(answer.tag) != "Answer":
            continue
        name = value = ""
        for child in answer:
            if _local(child.tag) == "QuestionIdentifier":
                name = (child.text or "").strip()
            elif _local(child.tag) == "FreeText":
                value = child.text or ""
        if name:
            cells[ANSWER + name] = value
    return cells


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def header(rows: Sequence[Mapping[str, str]]) -> list[str]:
    """The file's columns for ``rows``: the HIT's and the assignment's, then every ``Input.*``
    and ``Answer.*`` column any row has (each sorted by name), then the decision columns."""
    names = {name for row in rows for name in row}
    inputs = sorted(n for n in names if n.startswith(INPUT))
    answers = sorted(n for n in names if n.startswith(ANSWER))
    return [*HIT_COLUMNS, *ASSIGNMENT_COLUMNS, *inputs, *answers, *DECISION_COLUMNS]


def write_batch_results(rows: Iterable[Mapping[str, str]], path: Path) -> int:
    """Write ``rows`` (column -> cell) to ``path`` in the website's layout (UTF-8, every cell
    quoted, CRLF line ends); how many rows were written."""
    kept = list(rows)
    columns = header(kept)
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, columns, quoting=csv.QUOTE_ALL, restval="")
        writer.writeheader()
        writer.writerows(kept)
    return len(kept)
