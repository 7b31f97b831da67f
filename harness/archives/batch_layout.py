"""The requester website's batch-results layout (``Batch_<id>_batch_results.csv``), as read.

One row per submitted assignment. Its columns, in the website's order (docs/archives.md says
what each holds): the HIT's, the assignment's (`REQUIRED` are the ones read), then one
``Input.<name>`` column per variable of the batch's input file, one ``Answer.<name>`` column per
answer field, and ``Approve`` and ``Reject`` (left empty; the website read them back when a
requester uploaded decisions). Every cell is quoted. Times are written as the website showed
them, in US Pacific time with its abbreviation (``Wed Jan 20 08:26:05 PST 2021``); money as
``$0.10``; approval rates as ``100% (12/12)``. A crowd-html-elements form (``<crowd-form>``)
answers in one column, ``Answer.taskAnswers``: a JSON array holding one object of the form's
fields.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

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

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_OFFSETS = {"PST": -8, "PDT": -7, "UTC": 0, "GMT": 0}
_TIME = re.compile(
    r"(?P<wd>[A-Z][a-z]{2}) (?P<mon>[A-Z][a-z]{2}) (?P<day>\d{2}) "
    r"(?P<h>\d{2}):(?P<m>\d{2}):(?P<s>\d{2}) (?P<tz>[A-Z]{3}) (?P<year>\d{4})",
    re.ASCII,
)
EXAMPLE_TIME = "Wed Jan 20 08:26:05 PST 2021"


class TimeFormatError(ValueError):
    """A cell that is not a time as the requester website wrote it."""


def parse_time(text: str) -> datetime:
    """A time the website wrote (any of PST, PDT, UTC, GMT), as UTC; `TimeFormatError` for
    anything else, such as a spreadsheet's rewriting of it (``1/20/2021 8:26``) or a weekday
    that does not fall on the date."""
    match = _TIME.fullmatch(text.strip())
    if match is None or match["mon"] not in MONTHS or match["tz"] not in _OFFSETS:
        raise TimeFormatError(
            f"{text[:40]!r} is not a time as the requester website wrote it (like "
            f"{EXAMPLE_TIME!r}); a spreadsheet may have rewritten it: use the file as "
            "downloaded"
        )
    try:
        local = datetime(
            int(match["year"]),
            MONTHS.index(match["mon"]) + 1,
            int(match["day"]),
            int(match["h"]),
            int(match["m"]),
            int(match["s"]),
        )
    except ValueError as exc:
        raise TimeFormatError(f"{text[:40]!r} is not a date: {exc}") from exc
    if WEEKDAYS[local.weekday()] != match["wd"]:
        raise TimeFormatError(
            f"{text[:40]!r}: {local:%Y-%m-%d} is a {WEEKDAYS[local.weekday()]}, not a "
            f"{match['wd']}; the date was changed after the download"
        )
    return (local - timedelta(hours=_OFFSETS[match["tz"]])).replace(tzinfo=UTC)
