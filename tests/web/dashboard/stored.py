"""A launched study with many submissions awaiting review, written straight into the store
(launching on a study link needs no service), and the dashboard on it through Flask's test
client: for pages whose point is how many submissions there are, not how they arrived."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.models import Assignment, AssignmentStatus, Hit, Item, Judgment, Worker
from harness.web.dashboard import create_dashboard_app
from tests.clock import minutes_ago
from tests.platform.factories import harness_cli, small_spec
from tests.web.dashboard.factories import CSRF, SETTINGS, STUDY

PER_HIT = 5
SECONDS = 4.0
"""Every judgment's time on its item: an assignment takes ``PER_HIT * SECONDS`` on task."""


@dataclass
class StoredStudy:
    """``submissions`` assignments submitted one a minute, oldest first (``ids``), each by
    its own worker, each item answered ``value`` (its position) in `SECONDS`."""

    db: str
    ids: list[str]


def stored_study(
    directory: Path, submissions: int, database: str, extra: dict[str, str] | None = None
) -> StoredStudy:
    """A small study launched on a study link with ``submissions`` submitted assignments."""
    raters = 3
    hits = -(-submissions // raters)
    spec = small_spec(
        directory,
        items=hits * PER_HIT,
        per_hit=PER_HIT,
        raters=raters,
        hosting="external",
        **(extra or {}),
    )
    done = harness_cli(
        "launch", str(spec), "--target", "link", "--db", database, "--public-url", "http://x.test"
    )
    assert done.exit_code == 0, done.output
    engine = make_engine(database)
    ids: list[str] = []
    start = minutes_ago(submissions + 5)
    try:
        with session_scope(engine) as session:
            items = {i.key: i for i in session.exec(select(Item))}
            for hit in session.exec(select(Hit).order_by(Hit.index)):
                for _ in range(raters):
                    n = len(ids)
                    if n == submissions:
                        break
                    worker = Worker(platform_worker_id=f"W{n:04d}")
                    session.add(worker)
                    session.flush()
                    submitted = start + timedelta(minutes=n)
                    assignment = Assignment(
                        hit_id=hit.id,
                        worker_id=worker.id,
                        platform_assignment_id=f"A{n:04d}",
                        status=AssignmentStatus.SUBMITTED,
                        accepted_at=submitted - timedelta(seconds=PER_HIT * SECONDS),
                        submitted_at=submitted,
                    )
                    session.add(assignment)
                    session.flush()
                    for position, key in enumerate(hit.items):
                        item = items[key]
                        session.add(
                            Judgment(
                                assignment_id=assignment.id,
                                item_id=item.id,
                                worker_id=worker.id,
                                instrument_id=item.instrument_id,
                                position=position,
                                value=float(position),
                                role=item.role,
                                seconds=SECONDS,
                            )
                        )
                    ids.append(assignment.platform_assignment_id)
    finally:
        engine.dispose()
    return StoredStudy(database, ids)


def dashboard_client(db: str) -> tuple[Any, str]:
    """The dashboard on ``db`` through Flask's test client, logged in, and its CSRF token."""
    app = create_dashboard_app(db, SETTINGS)
    client = app.test_client()
    login = CSRF.search(client.get("/dashboard/login").get_data(as_text=True))
    assert login
    client.post("/dashboard/login", data={"password": SETTINGS.password, "csrf_token": login[1]})
    token = CSRF.search(client.get("/dashboard/").get_data(as_text=True))
    assert token
    return client, token[1]


def study_url(path: str = "") -> str:
    return f"/dashboard/study/{STUDY}{path}"


def text_of(html: str) -> str:
    """A page's words, tags dropped and spaces folded (what a person reads)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()
