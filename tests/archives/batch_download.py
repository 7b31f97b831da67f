"""What the requester website's "Download CSV" made of a batch, rebuilt on MTurk's API: a study
run on the local service written as the files requesters hold, for the import's round trip
(docs/archives.md). Times as the website wrote them, in US Pacific time; money as ``$0.10``.
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness.archives.batch_layout import ANSWER, INPUT, MONTHS, WEEKDAYS

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


def format_time(moment: datetime | None) -> str:
    """``moment`` as the website wrote times: US Pacific, ``Wed Jan 20 08:26:05 PST 2021``."""
    if moment is None:
        return ""
    utc = moment.astimezone(UTC)
    summer = _pacific_summer(utc)
    local = utc + timedelta(hours=-7 if summer else -8)
    return (
        f"{WEEKDAYS[local.weekday()]} {MONTHS[local.month - 1]} {local:%d %H:%M:%S} "
        f"{'PDT' if summer else 'PST'} {local.year}"
    )


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


NO_RATE = "0% (0/0)"
"""An approval rate the API does not give (the website showed the worker's)."""


def batch_rows(client: Any, hit_ids: Sequence[str]) -> list[dict[str, str]]:
    """One row per submitted, approved or rejected assignment of the HITs ``hit_ids``."""
    rows = []
    for hit_id in hit_ids:
        hit = client.get_hit(HITId=hit_id)["HIT"]
        common = _hit_cells(hit)
        for assignment in _assignments(client, hit_id):
            rows.append({**common, **_assignment_cells(assignment)})
    return rows


def _hit_cells(hit: dict[str, Any]) -> dict[str, str]:
    return {
        "HITId": hit["HITId"],
        "HITTypeId": hit["HITTypeId"],
        "Title": hit.get("Title", ""),
        "Description": hit.get("Description", ""),
        "Keywords": hit.get("Keywords", ""),
        "Reward": format_money(hit.get("Reward", "")),
        "CreationTime": format_time(hit.get("CreationTime")),
        "MaxAssignments": str(hit.get("MaxAssignments", "")),
        "RequesterAnnotation": hit.get("RequesterAnnotation", ""),
        "AssignmentDurationInSeconds": str(hit.get("AssignmentDurationInSeconds", "")),
        "AutoApprovalDelayInSeconds": str(hit.get("AutoApprovalDelayInSeconds", "")),
        "Expiration": format_time(hit.get("Expiration")),
        "NumberOfSimilarHITs": "",
        "LifetimeInSeconds": "",
    }


def _assignment_cells(assignment: dict[str, Any]) -> dict[str, str]:
    accepted, submitted = assignment["AcceptTime"], assignment["SubmitTime"]
    return {
        "AssignmentId": assignment["AssignmentId"],
        "WorkerId": assignment["WorkerId"],
        "AssignmentStatus": assignment["AssignmentStatus"],
        "AcceptTime": format_time(accepted),
        "SubmitTime": format_time(submitted),
        "AutoApprovalTime": format_time(assignment.get("AutoApprovalTime")),
        "ApprovalTime": format_time(assignment.get("ApprovalTime")),
        "RejectionTime": format_time(assignment.get("RejectionTime")),
        "RequesterFeedback": assignment.get("RequesterFeedback", ""),
        "WorkTimeInSeconds": str(max(0, round((submitted - accepted).total_seconds()))),
        "LifetimeApprovalRate": NO_RATE,
        "Last30DaysApprovalRate": NO_RATE,
        "Last7DaysApprovalRate": NO_RATE,
        **answer_columns(assignment["Answer"]),
    }


def _assignments(client: Any, hit_id: str) -> Iterator[dict[str, Any]]:
    token = None
    while True:
        page = client.list_assignments_for_hit(
            HITId=hit_id,
            MaxResults=100,
            AssignmentStatuses=["Submitted", "Approved", "Rejected"],
            **({"NextToken": token} if token else {}),
        )
        yield from page["Assignments"]
        token = page.get("NextToken")
        if not token:
            return
