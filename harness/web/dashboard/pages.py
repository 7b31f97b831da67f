"""A study's pages beyond its live page: the submissions awaiting review page by page (every
one of them reachable, and all of them approved or rejected at once), one submission's
answers, and the study's judgments as CSV (the same table as `harness export`).

These pages are read when asked for, not streamed: a list of a thousand submissions is not
sent to every open study page each time one arrives.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import Any

from flask import abort, request
from werkzeug.wrappers import Response

from harness.store.database import session_scope
from harness.store.export import ExportColumns, export_table
from harness.store.judgment_table import assignment_answers, study_judgments
from harness.web.dashboard.views import bp, dashboard_state, page, study_id_of
from harness.web.dashboard.watch import study_assignments

PER_PAGE = 50
"""Submissions on one page of the list."""


@dataclass(frozen=True)
class Paged:
    """One page of a list: its rows, its number (from 1), how many pages and rows in all."""

    rows: list[dict[str, Any]]
    number: int
    pages: int
    total: int

    @property
    def first(self) -> int:
        """The position (from 1) of the page's first row in the whole list."""
        return (self.number - 1) * PER_PAGE + 1 if self.rows else 0


def page_of(rows: list[dict[str, Any]], number: int, size: int = PER_PAGE) -> Paged:
    """Page ``number`` of ``rows`` (a number past the end gives the last page)."""
    pages = max(1, math.ceil(len(rows) / size))
    number = min(max(number, 1), pages)
    return Paged(rows[(number - 1) * size : number * size], number, pages, len(rows))


@bp.get("/study/<name>/submissions")
def submissions(name: str) -> str:
    """Every submission awaiting review, oldest first, `PER_PAGE` to a page; the forms act
    on the ticked ones, or on every one listed (those stored up to the newest listed)."""
    state = dashboard_state()
    snapshot = state.watcher.snapshot(study_id_of(name))
    number = request.args.get("page", default=1, type=int) or 1
    listed = page_of(snapshot.pending, number)
    through = max((a["pk"] for a in snapshot.pending), default=0)
    return page("submissions.html", s=snapshot, listed=listed, through=through)


@bp.get("/study/<name>/assignment/<aid>")
def answers(name: str, aid: str) -> str:
    """One submission's answers: each item as shown, the value given and its timing."""
    state = dashboard_state()
    study_id = study_id_of(name)
    with session_scope(state.engine) as session:
        found = study_assignments(session, study_id, assignment=aid)
        if not found:
            abort(404, f"study {name!r} has no assignment {aid!r}")
        listed = found[0]
        table = assignment_answers(session, study_id, int(listed["pk"] or 0))
    snapshot = state.watcher.snapshot(study_id)
    submitted, accepted = listed["submitted_at"], listed["accepted_at"]
    on_task = (submitted - accepted) if submitted is not None and accepted is not None else None
    rows = [
        {
            "position": int(r["position"]) + 1,
            "item": r["item_id"],
            "role": str(r["role"]),
            "shown": "; ".join(f"{k}: {v}" for k, v in (r["display"] or {}).items()),
            "value": None if r["skipped"] or r["value"] is None else float(r["value"]),
            "skipped": bool(r["skipped"]),
            "seconds": None if r["seconds"] is None else float(r["seconds"]),
        }
        for r in table.to_dict(orient="records")
    ]
    assignment = {**listed, "on_task": on_task}
    return page("answers.html", s=snapshot, a=assignment, answers=rows)


@bp.get("/study/<name>/judgments.csv")
def judgments_csv(name: str) -> Response:
    """The study's judgments as CSV: harness's long table, as `harness export` writes it."""
    state = dashboard_state()
    study_id = study_id_of(name)
    with session_scope(state.engine) as session:
        table = export_table(study_judgments(session, study_id), ExportColumns.HARNESS)
    out = io.StringIO()
    table.to_csv(out, index=False)
    file = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    headers = {"Content-Disposition": f'attachment; filename="{file}-judgments.csv"'}
    return Response(out.getvalue(), mimetype="text/csv", headers=headers)
