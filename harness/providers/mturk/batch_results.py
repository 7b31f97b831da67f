"""What the requester website's "Download CSV" made of a batch: its HITs' submitted assignments
in the batch-results layout (`harness.archives.batch_layout`), read through MTurk's API.

The website is gone with MTurk; this is its download, rebuilt on the API, so that a study run
on the local service can be written as the files requesters hold and imported back
(docs/archives.md). The boto3 client is passed in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from harness.archives.batch_layout import answer_columns, format_money, format_time

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
