"""Benchmark the dashboard: how soon a stored submission is shown, how fast a big study's page
loads, and whether open dashboards slow the intake of submissions.

    .venv/bin/python scripts/bench_dashboard.py [--submissions 1000] [--pace 0.5]
        [--judgments 100000]

1. Shown after stored, and the intake with and without open dashboards (one run), as it runs
   for real: `harness serve --dashboard` (live screening acting at once) and the local MTurk
   service each in a process of their own, a simulated crowd of 10 careful workers in this
   one submitting through the worker side and the task pages, one HIT started every
   ``--pace`` seconds at most (0: as fast as it can), and 5 open study pages reading the
   event stream in another process (as browsers would). First 30 submissions with no
   dashboard open (intake rate A), then ``--submissions`` with the 5 open (rate B), then 30
   with none open again (rate C: the study has grown, so A and C bracket B). For each
   submission of B: the time from its ``assignment.submitted`` event (written when its
   answers are committed) to the first update of each page that shows it; over all of B, and
   over its last tenth (the study at its largest).
2. Page load of a study with ``--judgments`` judgments (written straight into the store
   after a real launch; 0 leaves it out): the first load (the cache is built) and then the
   median of 20 loads, each after the snapshot's check interval, so each asks the store
   whether anything moved.

Everything runs on loopback and stops by itself; about ``--submissions`` x ``--pace``
seconds and a minute or two more on two cores.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import requests  # noqa: E402

from harness.providers.mturk.crowd import SimulatedWorkers  # noqa: E402
from tests.web.dashboard.factories import CSRF, PASSWORD, STUDY, LiveStudy, logged_in  # noqa: E402

SUBMITTED = re.compile(
    r'data-kind="assignment.submitted"><td class="muted">[^<]*</td><td>[^<]*'
    r"</td><td>([^<]+)</td>"
)


def watch_dashboards(base: str, count: int, stop: Any, out: Any) -> None:
    """In a process of its own (as browsers are): ``count`` open study pages reading the event
    stream; puts, per page, when each submission first showed."""
    boards = [Dashboard(base) for _ in range(count)]
    for board in boards:
        board.start()
    out.put("ready")
    stop.wait()
    out.put([{k: v.isoformat() for k, v in board.seen.items()} for board in boards])


class Dashboard(threading.Thread):
    """One open study page: reads the event stream, notes when each submission first shows."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.http, _ = logged_in(base)
        self.url = f"{base}/dashboard/study/{STUDY}/stream"
        self.seen: dict[str, datetime] = {}

    def run(self) -> None:
        """Read the stream, and read it again from the version shown when the server ends it
        (every few minutes), as the page's browser does."""
        version: int | None = None
        while True:
            url = self.url if version is None else f"{self.url}?since={version}"
            try:
                with self.http.get(url, stream=True, timeout=(5, 600)) as response:
                    for line in response.iter_lines(decode_unicode=True):
                        if not line or not line.startswith("data: "):
                            continue
                        now = datetime.now(UTC)
                        data = json.loads(line[6:])
                        version = data.get("version", version)
                        events = data.get("sections", {}).get("events", "")
                        events += data.get("events", "")  # the feed's new rows
                        for assignment in SUBMITTED.findall(events):
                            self.seen.setdefault(assignment, now)
            except requests.RequestException:
                time.sleep(0.5)


def stored_times(db: str) -> dict[str, datetime]:
    from sqlmodel import select

    from harness.store import make_engine, session_scope
    from harness.store.models import Event, EventKind

    engine = make_engine(db)
    with session_scope(engine) as session:
        rows = session.exec(select(Event).where(Event.kind == EventKind.ASSIGNMENT_SUBMITTED))
        out = {
            str(e.subject): e.at.replace(tzinfo=UTC) if e.at.tzinfo is None else e.at for e in rows
        }
    engine.dispose()
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], directory: Path, probe: str) -> subprocess.Popen[bytes]:
    """``harness COMMAND`` in a process of its own (this checkout's harness), once it answers."""
    env = os.environ | {"PYTHONPATH": str(ROOT), "HARNESS_DASHBOARD_PASSWORD": PASSWORD}
    log = (directory / f"{command[0]}.log").open("ab")
    child = subprocess.Popen(
        [sys.executable, "-m", "harness", *command],
        cwd=directory,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    for _ in range(300):
        try:
            requests.get(probe, timeout=1)
            return child
        except requests.RequestException:
            if child.poll() is not None:
                raise SystemExit(
                    f"{command[0]} stopped; see {directory / command[0]}.log"
                ) from None
            time.sleep(0.1)
    raise SystemExit(f"{command[0]} did not answer at {probe}")


@dataclass
class PacedWorkers(SimulatedWorkers):
    """The simulated crowd, starting one HIT every ``pace`` seconds at most: a steady stream
    of submissions, as a study's crowd makes, instead of bursts as fast as the machine goes."""

    pace: float = 0.0
    _due: float = 0.0

    def work(self, worker: Any, hit_id: str, rng: Any, report: Any) -> bool:
        wait = self._due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._due = max(self._due, time.monotonic()) + self.pace
        return bool(super().work(worker, hit_id, rng, report))


def submissions_and_intake(directory: Path, count: int, pace: float) -> dict[str, Any]:
    """The task server (`harness serve --dashboard`, live screening acting) and the local MTurk
    service each in a process, the crowd in this one, the 5 dashboards in another."""
    from harness.simulate import Crowd
    from harness.spec import load_spec
    from harness.store.migrations import upgrade
    from tests.platform.factories import harness_cli, launch_args, small_spec, truths_of

    workers_n, rounds_alone = 10, 3
    total = 2 * rounds_alone * workers_n + count
    db = f"sqlite:///{directory / 'harness.db'}"
    upgrade(db)
    mturk_url, pages = f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"
    children = [
        start(
            ["mturk-local", "--port", mturk_url.rsplit(":", 1)[1], "--db", "mturk.sqlite"],
            directory,
            mturk_url + "/_control/clock",
        ),
        start(
            ["serve", "--port", pages.rsplit(":", 1)[1], "--db", db, "--dashboard"],
            directory,
            pages + "/health",
        ),
    ]
    context = multiprocessing.get_context("spawn")
    try:
        spec = small_spec(
            directory,
            items=-(-total // 5) * 5,
            per_hit=5,
            raters=5,
            hosting="external",
            controls="{identical: {per_hit: 1, seed: 3}}",
            screening="{low_variance: {action: block}}",
        )
        launched = harness_cli(*launch_args(spec, mturk_url, db, "--public-url", pages))
        assert launched.exit_code == 0, launched.output
        loaded = load_spec(spec)
        crowd = Crowd({"careful": workers_n}, size=workers_n, seed=3).workers(loaded.scale)
        http = requests.Session()
        driver = PacedWorkers(mturk_url, crowd, truths_of(loaded), loaded.scale, http, pace=pace)

        def timed(rounds: int) -> tuple[list[str], float]:
            started = time.perf_counter()
            report = driver.run(rounds)
            return report.submitted, len(report.submitted) / (time.perf_counter() - started)

        first, rate_alone = timed(rounds_alone)
        stop, out = context.Event(), context.Queue()
        watching = context.Process(target=watch_dashboards, args=(pages, 5, stop, out))
        watching.start()
        assert out.get(timeout=60) == "ready"
        time.sleep(1.0)  # every stream connected and sent its first update
        second, rate_watched = timed(-(-count // workers_n))
        time.sleep(2.0)  # the last submissions reach the pages
        stop.set()
        seen = [
            {a: datetime.fromisoformat(t) for a, t in board.items()}
            for board in out.get(timeout=60)
        ]
        watching.join(timeout=30)
        third, rate_after = timed(rounds_alone)
        stored = stored_times(db)
    finally:
        for child in children:
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:  # a loaded machine: the figures are taken
                child.kill()
                child.wait(timeout=30)
    latencies = [
        (board[a] - stored[a]).total_seconds() for board in seen for a in second if a in board
    ]
    last = second[-max(1, len(second) // 10) :]
    latest = [(board[a] - stored[a]).total_seconds() for board in seen for a in last if a in board]
    latencies, latest = latencies or [float("nan")], latest or [float("nan")]
    return {
        "submissions_alone": len(first),
        "intake_alone_per_s": rate_alone,
        "submissions_watched": len(second),
        "intake_watched_per_s": rate_watched,
        "submissions_after": len(third),
        "intake_after_per_s": rate_after,
        "latency_median_s": statistics.median(latencies),
        "latency_p95_s": float(np.percentile(latencies, 95)),
        "latency_max_s": max(latencies),
        "latency_samples": len(latencies),
        "last_submissions": len(last),
        "last_median_s": statistics.median(latest),
        "last_p95_s": float(np.percentile(latest, 95)),
        "assignments": len(stored),
        "never_shown": sum(1 for board in seen for a in second if a not in board),
    }


def big_study(directory: Path, judgments: int) -> dict[str, Any]:
    """A launched study with ``judgments`` judgments written into the store; its page loads."""
    import sqlalchemy as sa
    from sqlmodel import select

    from harness.store import make_engine, session_scope
    from harness.store.models import Assignment, AssignmentStatus, Hit, Item, Judgment, Worker
    from harness.web.dashboard import create_dashboard_app
    from tests.web.dashboard.factories import SETTINGS

    per_hit, raters = 20, 50
    items = judgments // raters
    live = LiveStudy(directory, items=items, raters=raters, per_hit=per_hit).start()
    live.server.stop()
    live.mturk.stop()
    engine = make_engine(live.db)
    rng = np.random.default_rng(0)
    with session_scope(engine) as session:
        hits = session.exec(select(Hit)).all()
        study_items = {i.key: (i.id, i.instrument_id, i.role) for i in session.exec(select(Item))}
        workers = [Worker(platform_worker_id=f"AW{w:04d}") for w in range(4 * raters)]
        session.add_all(workers)
        session.flush()
        truth = {key: float(rng.uniform(0, 10)) for key in study_items}
        assignment_rows, judgment_rows = [], []
        now = datetime.now(UTC)
        for hit in hits:
            chosen = rng.choice(len(workers), size=hit.max_assignments, replace=False)
            for slot, w in enumerate(chosen):
                assignment_rows.append(
                    {
                        "hit_id": hit.id,
                        "worker_id": workers[w].id,
                        "platform_assignment_id": f"A{hit.index:05d}x{slot:03d}",
                        "status": AssignmentStatus.SUBMITTED.name,
                        "submitted_at": now,
                        "accepted_at": now,
                        "screened_at": now,
                    }
                )
        session.execute(sa.insert(Assignment), assignment_rows)
        ids = {
            a.platform_assignment_id: (a.id, a.worker_id, a.hit_id)
            for a in session.exec(select(Assignment))
        }
        by_hit = {h.id: h for h in hits}
        for _aid, (pk, worker_pk, hit_pk) in ids.items():
            for position, key in enumerate(by_hit[hit_pk].items):
                item_pk, instrument, role = study_items[key]
                value = float(np.clip(round(truth[key] + rng.normal(0, 1.5)), 0, 10))
                judgment_rows.append(
                    {
                        "assignment_id": pk,
                        "item_id": item_pk,
                        "worker_id": worker_pk,
                        "instrument_id": instrument,
                        "position": position,
                        "value": value,
                        "skipped": False,
                        "role": role,
                        "seconds": float(rng.uniform(2, 9)),
                    }
                )
        session.execute(sa.insert(Judgment), judgment_rows)
    engine.dispose()
    app = create_dashboard_app(live.db, SETTINGS)
    client = app.test_client()
    token = CSRF.search(client.get("/dashboard/login").get_data(as_text=True))
    assert token
    client.post(
        "/dashboard/login", data={"password": SETTINGS.password, "csrf_token": token.group(1)}
    )
    watcher = app.extensions["harness.web.dashboard"].watcher
    started = time.perf_counter()
    page = client.get(f"/dashboard/study/{STUDY}")
    cold = time.perf_counter() - started
    assert page.status_code == 200, page.status_code
    warm = []
    for _ in range(20):
        time.sleep(watcher.check_every + 0.05)
        started = time.perf_counter()
        assert client.get(f"/dashboard/study/{STUDY}").status_code == 200
        warm.append(time.perf_counter() - started)
    app.extensions["harness.web.dashboard"].engine.dispose()
    return {
        "judgments": len(judgment_rows),
        "first_load_s": cold,
        "load_median_s": statistics.median(warm),
        "load_max_s": max(warm),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between HITs started")
    parser.add_argument("--judgments", type=int, default=100_000, help="0: no page-load run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        live = submissions_and_intake(Path(first), args.submissions, args.pace)
        print(
            f"shown after stored ({live['latency_samples']} = {live['submissions_watched']} "
            f"submissions x 5 dashboards, one HIT started every {args.pace:g} s at most; "
            f"{live['assignments']} assignments in the end): median "
            f"{live['latency_median_s'] * 1000:.0f} ms, p95 {live['latency_p95_s'] * 1000:.0f} "
            f"ms, max {live['latency_max_s'] * 1000:.0f} ms; never shown: {live['never_shown']}"
        )
        print(
            f"  the last {live['last_submissions']} submissions: median "
            f"{live['last_median_s'] * 1000:.0f} ms, p95 {live['last_p95_s'] * 1000:.0f} ms"
        )
        print(
            f"intake: {live['intake_alone_per_s']:.1f} submissions/s with no dashboard open "
            f"({live['submissions_alone']}), {live['intake_watched_per_s']:.1f}/s with 5 open "
            f"({live['submissions_watched']}), {live['intake_after_per_s']:.1f}/s with none open "
            f"again ({live['submissions_after']})"
        )
        if not args.judgments:
            return
        big = big_study(Path(second), args.judgments)
        print(
            f"study page with {big['judgments']:,} judgments: first load "
            f"{big['first_load_s'] * 1000:.0f} ms (cache built), then median "
            f"{big['load_median_s'] * 1000:.0f} ms, max {big['load_max_s'] * 1000:.0f} ms "
            "over 20 loads"
        )


if __name__ == "__main__":
    requests.packages.urllib3.disable_warnings()  # type: ignore[attr-defined]
    main()
