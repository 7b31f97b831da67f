"""The load test's checks, row by row (scripts/load_test.py): after the crowd, the screening
queue and one `harness sync`, nothing the servers acknowledged is lost and nothing is done twice.

The same checks on every platform: every submission stored with all its judgments, no
judgment, submission event, decision, decision event or logged action twice, every decision
carried out, every stored assignment screened. Where the platform is a separate service (the
local MTurk service) its own state is read back and compared with the store: its submissions
are stored, its rejections and blocks are the ones logged. On a study link there is no platform
behind the task server: the store's slots are the places, and an action is its event
(`harness.platform.actions`), so what is compared is the store with its own log: every
submitted slot stored, the rejected assignments are the ones logged, and no blocked participant
was given a place after their block.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
import yaml
from load_session import Timings

from harness.store.models import aware

Checks = dict[str, tuple[bool, str]]
"""Check name -> (passed, what was found)."""

BLOCK_COMMIT_GRACE = timedelta(seconds=5)
"""How long after a block's event a place may still go to the blocked participant: the event
is stamped before its transaction commits, and an allocation reads only what is committed."""


def platform_state(mturk_url: str, db: str) -> tuple[dict[str, str], set[str]]:
    """Every assignment the local MTurk service has (id -> status) and the workers it blocks."""
    import boto3
    from botocore.config import Config

    client = boto3.client(
        "mturk",
        endpoint_url=mturk_url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"mode": "standard", "total_max_attempts": 5}),
    )
    engine = sa.create_engine(db)
    with engine.connect() as c:
        hits = [
            r[0]
            for r in c.execute(
                sa.text("SELECT platform_hit_id FROM hit WHERE platform_hit_id IS NOT NULL")
            )
        ]
        block_ref = c.execute(sa.text("SELECT block_ref FROM study_platform")).scalar_one()
    engine.dispose()
    states: dict[str, str] = {}
    for hit in hits:
        token = None
        while True:
            page = client.list_assignments_for_hit(
                HITId=hit, MaxResults=100, **({"NextToken": token} if token else {})
            )
            states.update({a["AssignmentId"]: a["AssignmentStatus"] for a in page["Assignments"]})
            token = page.get("NextToken")
            if not token:
                break
    blocked: set[str] = set()
    token = None
    while True:
        page = client.list_workers_with_qualification_type(
            QualificationTypeId=block_ref, MaxResults=100, **({"NextToken": token} if token else {})
        )
        blocked |= {q["WorkerId"] for q in page["Qualifications"]}
        token = page.get("NextToken")
        if not token:
            break
    return states, blocked


def check_mturk(db: str, mturk_url: str, timings: Timings) -> Checks:
    """Every check of an MTurk run: the store's, then the local MTurk service's state against
    the store's log."""
    platform, blocked = platform_state(mturk_url, db)
    on_platform = {a for a, s in platform.items() if s in ("Submitted", "Approved", "Rejected")}
    engine = sa.create_engine(db)
    try:
        with engine.connect() as c:
            store = StoreChecks(c, engine.dialect.name)
            stored = store.stored(on_platform, timings.acknowledged, "on the platform")
            duplicated = stored.pop("0 duplicated judgments")
            out = stored
            stored_only = sorted(a for a, n in store.judged().items() if n and a not in on_platform)
            out["stored by harness, never submitted on the platform"] = (
                True,
                f"{len(stored_only)} (the worker's MTurk submit failed or was cut)",
            )
            out["0 duplicated judgments"] = duplicated
            out |= store.once_and_done()
            for name, done, there in (
                (
                    "rejections",
                    "review.rejected",
                    {a for a, s in platform.items() if s == "Rejected"},
                ),
                ("blocks", "worker.blocked", blocked),
            ):
                logged = set(store.events(done))
                out[f"platform {name} = {name} logged"] = (
                    logged == there,
                    f"{len(there)} on the platform, {len(logged)} logged",
                )
            out |= store.screened()
    finally:
        engine.dispose()
    return out


def check_link(db: str, timings: Timings) -> Checks:
    """Every check of a study-link run: the store's, then the store's places and statuses
    against its own log (on a link, the log is where actions are carried out)."""
    engine = sa.create_engine(db)
    try:
        with engine.connect() as c:
            store = StoreChecks(c, engine.dialect.name)
            submitted_slots = {
                str(r[0])
                for r in store.rows("SELECT session_ref FROM slot WHERE state = 'SUBMITTED'")
            }
            out = store.stored(submitted_slots, timings.acknowledged, "places submitted")
            assigned = Counter(
                str(r[0])
                for r in store.rows(
                    "SELECT assignment_id FROM slot WHERE assignment_id IS NOT NULL"
                )
            )
            twice = [a for a, n in assigned.items() if n > 1]
            out["0 places holding the same assignment"] = (
                not twice,
                f"{sum(assigned.values())} places with an assignment, {len(twice)} shared",
            )
            out |= store.once_and_done()
            rejected = {
                str(r[0])
                for r in store.rows(
                    "SELECT platform_assignment_id FROM assignment WHERE status = 'REJECTED'"
                )
            }
            logged = set(store.events("review.rejected"))
            out["rejected in the store = rejections logged"] = (
                rejected == logged,
                f"{len(rejected)} rejected, {len(logged)} logged",
            )
            late = store.placed_after_block()
            out["0 places given to a participant after their block"] = (
                not late,
                f"{len(set(store.events('worker.blocked')))} blocked, {len(late)} given a place "
                f"more than {BLOCK_COMMIT_GRACE.seconds} s after {late[:3]}",
            )
            out |= store.screened()
    finally:
        engine.dispose()
    return out


class StoreChecks:
    """The checks of the store alone, on one open connection."""

    def __init__(self, connection: sa.Connection, dialect: str) -> None:
        self.c = connection
        self.dialect = dialect

    def rows(self, sql: str) -> list[Any]:
        return list(self.c.execute(sa.text(sql)))

    def judged(self) -> dict[str, int]:
        """Each stored assignment's judgments: platform assignment id -> how many."""
        return {a: n for a, (n, _) in self._judged().items()}

    def _judged(self) -> dict[str, tuple[int, Any]]:
        return {
            str(r[0]): (int(r[1]), r[2])
            for r in self.rows(
                "SELECT a.platform_assignment_id, count(j.id), a.hit_id FROM assignment a "
                "LEFT JOIN judgment j ON j.assignment_id = a.id "
                "GROUP BY a.platform_assignment_id, a.hit_id"
            )
        }

    def stored(self, submitted: set[str], acknowledged: set[str], where: str) -> Checks:
        """0 lost: every submission the platform holds (``submitted``) or the task server
        acknowledged is stored with a judgment for every showing of its HIT; 0 duplicated
        judgments."""
        shown = {
            hit: len(items if isinstance(items, list) else yaml.safe_load(items))
            for hit, items in self.rows("SELECT id, items FROM hit")
        }
        judged = self._judged()
        lost = sorted(
            a
            for a in submitted | acknowledged
            if a not in judged or judged[a][0] != shown[judged[a][1]]
        )
        out: Checks = {
            "0 lost: every submission stored with all its judgments": (
                not lost,
                f"{len(submitted)} {where}, {len(acknowledged)} acknowledged by the task "
                f"server; {len(lost)} missing or incomplete {lost[:5]}",
            )
        }
        dup = self.rows(
            "SELECT assignment_id, item_id, position FROM judgment GROUP BY "
            "assignment_id, item_id, position HAVING count(*) > 1"
        )
        out["0 duplicated judgments"] = (not dup, f"{len(dup)} duplicated")
        return out

    def events(self, kind: str, key: str = "subject") -> Counter[str]:
        """How often each subject (or payload ``key``) of the events of ``kind`` was logged."""
        column = "subject" if key == "subject" else "payload"
        found = self.rows(f"SELECT {column} FROM event WHERE kind = '{kind}'")
        if key == "subject":
            return Counter(str(r[0]) for r in found)
        return Counter(
            str((r[0] if isinstance(r[0], dict) else yaml.safe_load(r[0]))[key]) for r in found
        )

    def once_and_done(self) -> Checks:
        """No event, decision or action twice; every decision that acts carried out."""
        out: Checks = {}

        def once(name: str, counts: Counter[str]) -> None:
            twice = {k: v for k, v in counts.items() if v > 1}
            out[name] = (
                not twice,
                f"{sum(counts.values())} events, {len(twice)} twice {list(twice.items())[:3]}",
            )

        once("0 duplicated submission events", self.events("assignment.submitted"))
        once("0 duplicated decision events", self.events("screening.decision", "decision"))
        once("each decision applied once", self.events("screening.applied", "decision"))
        once("each rejection logged once", self.events("review.rejected"))
        once("each block logged once", self.events("worker.blocked"))
        once("each replacement intent once", self.events("review.replace.intent"))
        # an action whose process was killed after its intent is resumed by another process
        # under an intent of its own (after reading the platform's state): two intents, one
        # result
        resumed = sum(
            n - 1
            for kind in ("review.reject.intent", "worker.block.intent")
            for n in self.events(kind).values()
        )
        out["actions resumed after a kill (a second intent)"] = (True, str(resumed))
        decisions = self.rows(
            "SELECT worker_id, heuristic, assignment_id, flag, state, action "
            "FROM screening_decision ORDER BY id"
        )

        def about(worker: Any, heuristic: Any, assignment: Any) -> tuple[Any, Any, Any]:
            # H7 is judged per assignment: each assignment's flag is its own decision
            return (worker, heuristic, assignment if heuristic == "low_correlation" else None)

        last: dict[tuple[Any, Any, Any], Any] = {}
        repeated = 0
        for worker, heuristic, assignment, flag, _, _ in decisions:
            repeated += last.get(about(worker, heuristic, assignment)) == flag
            last[about(worker, heuristic, assignment)] = flag
        out["0 duplicated decisions (a flag stored twice in a row)"] = (
            repeated == 0,
            f"{len(decisions)} decisions, {repeated} repeated",
        )
        latest = {about(w, h, a): (state, flag, act) for w, h, a, flag, state, act in decisions}
        # pending: the latest decision of a (worker, heuristic) whose raised flag acts and is not
        # carried out (a flag raised and since cleared is not carried out); a process killed in
        # the middle of one is taken over at once by the next (the other task-server process's
        # sweep, the sync), so none is left, kill runs included
        left = Counter(
            state
            for state, flag, action in latest.values()
            if flag and action != "REPORT" and state in ("PENDING", "CLAIMED")
        )
        out["every decision carried out"] = (
            sum(left.values()) == 0,
            f"{left['PENDING']} pending, {left['CLAIMED']} claimed",
        )
        payload = "payload" if self.dialect == "sqlite" else "payload::text"
        recovered = self.rows(
            "SELECT count(*) FROM event WHERE kind IN ('worker.blocked', 'review.rejected') "
            f"AND {payload} LIKE '%recovered%'"
        )[0][0]
        out["actions a killed process left, finished by another"] = (
            True,
            f"{recovered} found done on the platform and logged (not done again)",
        )
        return out

    def screened(self) -> Checks:
        """Every stored assignment screened; screening and platform-action failures counted."""
        unscreened = self.rows(
            "SELECT a.id FROM assignment a WHERE a.screened_at IS NULL AND EXISTS "
            "(SELECT 1 FROM judgment j WHERE j.assignment_id = a.id)"
        )
        failures = self.rows(
            "SELECT count(*) FROM event WHERE kind = 'assignment.after_submission_failed'"
        )
        failed = self.rows("SELECT count(*) FROM event WHERE kind = 'platform.action.failed'")
        return {
            "every stored assignment screened": (not unscreened, f"{len(unscreened)} not screened"),
            "screening failures (events)": (True, str(failures[0][0])),
            "platform actions failed and retried (events)": (True, str(failed[0][0])),
        }

    def placed_after_block(self) -> list[str]:
        """Participants given a place more than `BLOCK_COMMIT_GRACE` after their block (and
        not unblocked since): the allocator lets nobody blocked in."""
        blocks: dict[str, datetime] = {}
        for kind, subject, at in self.rows(
            "SELECT kind, subject, at FROM event WHERE kind IN "
            "('worker.blocked', 'worker.unblocked') ORDER BY id"
        ):
            if kind == "worker.blocked":
                blocks.setdefault(str(subject), moment(at))
            else:
                blocks.pop(str(subject), None)
        late = []
        for worker, reserved in self.rows(
            "SELECT w.platform_worker_id, s.reserved_at FROM slot s "
            "JOIN worker w ON w.id = s.worker_id WHERE s.reserved_at IS NOT NULL"
        ):
            block = blocks.get(str(worker))
            if block is not None and moment(reserved) > block + BLOCK_COMMIT_GRACE:
                late.append(str(worker))
        return sorted(set(late))


def moment(value: Any) -> datetime:
    """A stored time as UTC-aware (SQLite gives text back to a plain query)."""
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)
