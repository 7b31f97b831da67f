"""Load test of the full flow (issue 20): a burst of simulated workers doing a WS353 study
through the local MTurk service and `harness serve` with live screening, then a row-by-row
check that nothing was lost or done twice.

Run from the project root (loopback only; every server is started here and stopped after):

    python scripts/load_test.py --store sqlite --workers 50
    python scripts/load_test.py --store postgresql --workers 200 --raters 16
    python scripts/load_test.py --store sqlite --workers 50 --kill-every 5   # fault run
    python scripts/load_test.py --store postgresql --workers 200 --raters 48 --rate 60  # paced

What runs: `harness mturk-local` (gunicorn) and `harness serve` (gunicorn, ``--server-workers``
processes x ``--threads`` threads, live screening applying decisions) as subprocesses on free
loopback ports; the WS353 reproduction spec with ``--items-per-hit`` pairs per HIT and
``--raters`` raters per pair (so 36 HITs x raters assignments), its screening policy with
calibration failures rejected, launched with `harness launch --target local`. Then ``--workers``
threads at once, each one simulated worker (80% careful, 10% spammers, 10% straight-liners;
`harness.simulate.driver.SimulatedWorkers`) taking HITs until none is left or ``--seconds``
passed: list, accept, load the page, submit the answers to the task server (retrying a
connection cut or a 5xx, as a worker reloading would), submit to MTurk. ``--kill-every N``
SIGKILLs one task-server worker process every N seconds (gunicorn starts another).

Without ``--rate`` the crowd is a closed loop: the most the servers can do, with latency fixed by
Little's law (workers / rate seconds per assignment). ``--rate R`` starts assignments at R per
second across the crowd, as people pausing between assignments would (`load_pace.Pacer`): the
page and submit latency at an offered rate, with starts the servers could not keep up with
reported as late.

Reported: assignments per second (stored and submitted on the platform, over the crowd's wall
time), page and submit latency p50/p99, the task server's errors (5xx and cut connections),
then after the screening queue drained and one `harness sync`: every platform submission
stored with all its judgments (0 lost), no judgment, submission event, decision, decision
event or platform action twice (0 duplicated), every platform action matching its event, and
every stored assignment screened. Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import requests
import sqlalchemy as sa
import urllib3
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load_cpu import BackendCpu, check_pinnable, cpu_seconds, crowd_seconds, measure, pin  # noqa: E402
from load_http import Browser, Reply  # noqa: E402
from load_pace import Pacer, littles_law  # noqa: E402
from load_store import POSTGRES_ADMIN, fresh_store, ws353_spec  # noqa: E402

from harness.simulate import Crowd, control_truths  # noqa: E402
from harness.simulate.crowds import WORKER_PROFILE  # noqa: E402
from harness.simulate.driver import DriverReport, SimulatedWorkers  # noqa: E402
from harness.spec import load_spec  # noqa: E402
from harness.store.models import aware  # noqa: E402

MIX = {"careful": 0.8, "spammer": 0.1, "straight_liner": 0.1}
RETRIES = 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def harness(*args: str, check: bool = True) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, cwd=ROOT
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"harness {args[0]} failed: {done.stdout}{done.stderr}")
    return done.stdout + done.stderr


@contextmanager
def server(
    args: list[str], log: Path, probe: str, cpu: int | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``harness <args> --port <free>`` in the background until it answers ``probe`` (on CPU
    ``cpu`` only, when given)."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness", *args, "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            preexec_fn=None if cpu is None else pin(cpu),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if process.poll() is not None:
                raise RuntimeError(f"harness {args[0]} exited: {log.read_text()}")
            try:
                if requests.get(url + probe, timeout=1).ok:
                    break
            except requests.RequestException:  # not listening yet, or slow to answer
                time.sleep(0.05)
        yield process, url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def write_spec(directory: Path, items_per_hit: int, raters: int) -> Path:
    """The WS353 reproduction with smaller HITs and more raters; calibration failures rejected."""
    spec = ws353_spec("load", items_per_hit, raters)
    spec["screening"]["calibration_failure"] = {"action": "reject"}
    spec["budget"] = "100000.00"
    path = directory / "load.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


@dataclass
class Timings:
    """What the crowd saw of the task server, shared by every worker thread."""

    serve_url: str
    page: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    platform: dict[str, list[float]] = field(default_factory=dict)  # worker-side call: seconds
    errors: Counter[str] = field(default_factory=Counter)
    acknowledged: set[str] = field(default_factory=set)  # assignments the task server stored
    last_stored: float = 0.0  # when the task server last acknowledged one (perf_counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


class TimedSession(Browser):
    """A worker's browser: times task-server pages and submissions, and retries what a person
    would (a cut connection or a 5xx: reload, submit again). Platform calls reuse a kept-alive
    connection; task-server requests each open a new one (see `request`)."""

    def __init__(self, timings: Timings) -> None:
        super().__init__()
        self.timings = timings

    def request(
        self,
        method: str,
        url: str,
        params: Any = None,
        data: Any = None,
        headers: Any = None,
    ) -> Reply:
        if not url.startswith(self.timings.serve_url):  # the platform's worker side
            call = url.rstrip("/").rsplit("/", 1)[-1]
            for attempt in range(RETRIES - 1):
                try:
                    start = time.perf_counter()
                    reply = super().request(method, url, params, data, headers)
                    with self.timings.lock:
                        self.timings.platform.setdefault(call, []).append(
                            time.perf_counter() - start
                        )
                    return reply
                except urllib3.exceptions.HTTPError as exc:  # refused, cut
                    self._error(f"platform (not the task server): {type(exc).__name__}")
                    time.sleep(0.2 * (attempt + 1))
            return super().request(method, url, params, data, headers)
        kind = "submit" if url.endswith("/submit") else "page"
        # a new connection per request, as the reverse proxy in front of the task server opens
        # them (nginx's default); a browser's reused keep-alive connection the server closed
        # meanwhile is retried by the browser and never seen
        headers = {**(headers or {}), "Connection": "close"}
        response = None
        for attempt in range(RETRIES):
            start = time.perf_counter()
            try:
                response = super().request(method, url, params, data, headers)
            except urllib3.exceptions.HTTPError as exc:  # cut: before or in the middle of it
                self._error(f"{kind}: {type(exc).__name__} {str(exc)[-60:]}")
                time.sleep(0.2 * (attempt + 1))
                continue
            spent = time.perf_counter() - start
            if response.status_code >= 500:
                self._error(f"{kind}: HTTP {response.status_code}")
                time.sleep(0.2 * (attempt + 1))
                continue
            with self.timings.lock:
                getattr(self.timings, kind).append(spent)
                if kind == "submit" and response.status_code == 200:
                    self.timings.acknowledged.add(str((data or {}).get("assignmentId")))
                    self.timings.last_stored = time.perf_counter()
            return response
        return response or super().request(method, url, params, data, headers)

    def _error(self, what: str) -> None:
        with self.timings.lock:
            self.timings.errors[what] += 1


def crowd_worker(
    sim: SimulatedWorkers,
    worker: Any,
    seed: int,
    deadline: float,
    report: DriverReport,
    pacer: Pacer | None = None,
) -> None:
    """One simulated worker taking HITs until none is left for them or time is up; with a
    ``pacer``, each assignment waits for its slot (a refused accept tries again at once)."""
    rng = np.random.default_rng([seed, 4])
    refused, retrying = 0, False
    while time.perf_counter() < deadline and refused < 20:
        late = pacer.wait() if pacer is not None and not retrying else None
        hit = pick_hit(sim, worker, rng)
        if hit is None:
            return
        if late is not None:
            pacer.started(late)
        retrying = not sim.work(worker, hit, rng, report)
        if retrying:
            refused += 1  # e.g. the HIT filled between listing and accepting: list again


def terminate_connections(db: str, every: float, stop: threading.Event, cut: list[int]) -> None:
    """Every ``every`` seconds, terminate the task server's PostgreSQL connections (a database
    restart, a proxy dropping idle connections)."""
    name = sa.engine.make_url(db).database
    admin = sa.create_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        while not stop.wait(every):
            with admin.connect() as c:
                ended = c.execute(
                    sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                ).all()
            cut.append(len(ended))
    finally:
        admin.dispose()


def pick_hit(sim: SimulatedWorkers, worker: Any, rng: np.random.Generator) -> str | None:
    """One of the HITs the worker may accept, at random (people do not all take the first),
    in proportion to its places left: a group with many places is the one people find and
    take from, and a HIT about to fill is seldom the one a burst of workers all pick (which
    made a third of the accepts refused and listed again)."""
    from harness.simulate.driver import mturk_worker_id

    listed = sim._get(  # noqa: SLF001 - the driver's own worker-side call
        "/worker/hits", workerId=mturk_worker_id(worker.worker_id), acceptable=1, **sim.profile
    )
    open_hits = [h for h in listed["HITs"] if h["canAccept"]]
    places = np.array([max(int(h["NumberOfAssignmentsAvailable"]), 0) for h in open_hits])
    if not open_hits or places.sum() == 0:
        return None
    return str(open_hits[int(rng.choice(len(open_hits), p=places / places.sum()))]["HITId"])


def kill_workers(
    serve: subprocess.Popen[bytes], every: float, stop: threading.Event, killed: list[int]
) -> None:
    """SIGKILL one of the task server's worker processes every ``every`` seconds."""
    while not stop.wait(every):
        try:
            children = Path(f"/proc/{serve.pid}/task/{serve.pid}/children").read_text().split()
        except OSError:  # the server has stopped
            return
        if children:
            pid = int(children[len(killed) % len(children)])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000 if values else float("nan")


def run(args: argparse.Namespace) -> int:
    with (
        tempfile.TemporaryDirectory(prefix="harness-load-") as tmp,
        fresh_store(args.store, Path(tmp), "harness_load") as db,
    ):
        directory = Path(tmp)
        harness("db", "upgrade", "--db", db)
        spec = write_spec(directory, args.items_per_hit, args.raters)
        serve_args = [
            "serve",
            "--db",
            db,
            "--workers",
            str(args.server_workers),
            "--threads",
            str(args.threads),
        ]
        if args.inline_screening:
            serve_args.append("--screen-inline")
        with (
            server(
                # workers keep their connection while on the task server's page: longer than
                # the default 5 s under load, and a connection closed just as it is reused is
                # a retried error
                [
                    "mturk-local",
                    "--db",
                    str(directory / "mturk.sqlite"),
                    "--threads",
                    str(args.platform_threads),
                    "--keepalive",
                    "60",
                ],
                directory / "mturk.log",
                "/_control/clock",
                1 if args.pin else None,
            ) as (mturk, mturk_url),
            server(serve_args, directory / "serve.log", "/health", 0 if args.pin else None) as (
                serve,
                serve_url,
            ),
        ):
            harness(
                "launch",
                str(spec),
                "--target",
                "local",
                "--endpoint-url",
                mturk_url,
                "--public-url",
                serve_url,
                "--db",
                db,
            )
            loaded = load_spec(spec)
            if args.platform_errors:  # from now on: throttled and 503 requester calls
                share = args.platform_errors / 2
                faults = {"throttle_share": share, "unavailable_share": share}
                requests.post(f"{mturk_url}/_control/faults", json=faults).raise_for_status()
            truths = {
                str(k): float(v)
                for k, v in zip(loaded.items["item_id"], loaded.items["mean"], strict=True)
            }
            truths.update(
                {str(k): float(v) for k, v in control_truths(loaded.items, loaded.scale).items()}
            )
            workers = Crowd(MIX, size=args.workers, seed=args.seed).workers(loaded.scale)
            timings = Timings(serve_url)
            report = DriverReport()
            stop, killed = threading.Event(), []
            killer = None
            if args.kill_every:
                killer = threading.Thread(
                    target=kill_workers, args=(serve, args.kill_every, stop, killed)
                )
                killer.start()
            cut: list[int] = []
            cutter = None
            if args.terminate_every:
                cutter = threading.Thread(
                    target=terminate_connections, args=(db, args.terminate_every, stop, cut)
                )
                cutter.start()
            since = measure(
                {
                    "task server": lambda: cpu_seconds(serve.pid),
                    "local MTurk": lambda: cpu_seconds(mturk.pid),
                    "simulated crowd": crowd_seconds,
                }
            )
            backends = None
            if args.store == "postgresql":
                backends = BackendCpu(POSTGRES_ADMIN, sa.engine.make_url(db).database or "")
                backends.start()
            pacer = Pacer(args.rate) if args.rate else None
            start = time.perf_counter()
            deadline = start + args.seconds

            def one(i: int) -> None:
                with TimedSession(timings) as http:
                    sim = SimulatedWorkers(
                        mturk_url,
                        [workers[i]],
                        truths,
                        loaded.scale,
                        http,
                        seed=args.seed + i,
                        profile=WORKER_PROFILE,
                    )
                    crowd_worker(sim, workers[i], args.seed + i, deadline, report, pacer)

            with ThreadPoolExecutor(args.workers) as pool:
                list(pool.map(one, range(args.workers)))
            wall = time.perf_counter() - start
            # paced: not the slots taken at the end by workers with no HIT left
            if pacer is not None and timings.last_stored > start:
                wall = min(wall, timings.last_stored - start)
            during = since()
            if backends is not None:
                during["PostgreSQL backends"] = backends.stop()
            cpu = {
                "task server": cpu_seconds(serve.pid),
                "local MTurk": cpu_seconds(mturk.pid),
                "simulated crowd": time.process_time(),
            }
            stop.set()
            if killer is not None:
                killer.join()
            if cutter is not None:
                cutter.join()
                print(f"  database connections terminated: {sum(cut)} in {len(cut)} rounds")
            drained = wait_screened(db, 120)
            decided = post_to_screened(db)
            synced = harness("sync", "load", "--db", db, check=False)
            if args.platform_errors:  # the platform recovers; the next sync finishes the rest
                requests.post(
                    f"{mturk_url}/_control/faults",
                    json={"throttle_share": 0, "unavailable_share": 0},
                ).raise_for_status()
                synced += harness("sync", "load", "--db", db, check=False)
            checks = check(db, mturk_url, timings, report)
        print_report(args, wall, timings, report, killed, drained, synced, checks, pacer)
        if decided.verified:
            for what, spent in (("post to screened (verified by the rechecks, then screened)",
                                 decided.total()), ("  post to verified", decided.verified),
                                ("  verified to screened", decided.screened)):  # fmt: skip
                print(
                    f"  {what}: p50 {np.percentile(spent, 50):.1f} s, p99 "
                    f"{np.percentile(spent, 99):.1f} s, max {max(spent):.1f} s ({len(spent)})"
                )
            print(f"    rechecks before verified: {dict(sorted(decided.rechecks.items()))}")
        print(
            "  CPU seconds during the crowd: " + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
        )
        errors = [
            line
            for line in (directory / "serve.log").read_text(errors="replace").splitlines()
            if "Error" in line or "Exception" in line
        ]
        print_cpu(during, len(report.submitted), args.pin)
        if errors:  # what the task server logged (its 500s): the last line of each traceback
            print("  task-server log: " + "\n    ".join(dict.fromkeys(errors[-10:])))
    return 0 if all(ok for ok, _ in checks.values()) else 1


def wait_screened(db: str, seconds: float) -> float:
    """Seconds until every submission the rechecks still ask about was settled and every stored
    assignment screened (the queue drained); -1 if never."""
    engine = sa.create_engine(db)
    start = time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            with engine.connect() as c:
                left = c.execute(
                    sa.text(
                        "SELECT count(*) FROM assignment a WHERE a.screened_at IS NULL AND EXISTS "
                        "(SELECT 1 FROM judgment j WHERE j.assignment_id = a.id)"
                    )
                ).scalar_one()
                left += c.execute(
                    sa.text(
                        "SELECT count(*) FROM quarantined_submission "
                        "WHERE state = 'PENDING' AND recheck_at IS NOT NULL"
                    )
                ).scalar_one()
            if left == 0:
                return time.perf_counter() - start
            time.sleep(0.2)
        return -1.0
    finally:
        engine.dispose()


@dataclass
class Decided:
    """How soon live screening decided on each verified submission (seconds): from its post
    (its quarantine) to its verification by the rechecks, and from that to its screening."""

    verified: list[float]
    screened: list[float]
    rechecks: Counter[int]  # rechecks a submission took before it was verified -> how many

    def total(self) -> list[float]:
        return [v + s for v, s in zip(self.verified, self.screened, strict=True)]


def post_to_screened(db: str) -> Decided:
    """Each verified submission's times from its post to its verification and its screening."""
    engine = sa.create_engine(db)
    try:
        with engine.connect() as c:
            rows = c.execute(
                sa.text(
                    "SELECT q.received_at, q.resolved_at, a.screened_at, q.rechecks "
                    "FROM quarantined_submission q "
                    "JOIN assignment a ON a.platform_assignment_id = q.platform_assignment_id "
                    "WHERE a.screened_at IS NOT NULL AND q.resolved_at IS NOT NULL"
                )
            ).all()
    finally:
        engine.dispose()
    verified, screened = [], []
    for received, resolved, done, _ in rows:
        verified.append(max((_moment(resolved) - _moment(received)).total_seconds(), 0.0))
        screened.append(max((_moment(done) - _moment(resolved)).total_seconds(), 0.0))
    return Decided(verified, screened, Counter(int(r[3]) for r in rows))


def _moment(value: Any) -> datetime:
    """A stored time as UTC-aware (SQLite gives text back to a plain query)."""
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)


def platform_state(mturk_url: str, db: str) -> tuple[dict[str, str], set[str]]:
    """Every assignment the platform has (id -> status) and the workers it blocks."""
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


def check(
    db: str, mturk_url: str, timings: Timings, report: DriverReport
) -> dict[str, tuple[bool, str]]:
    """Every check, row by row: name -> (passed, what was found)."""
    platform, blocked = platform_state(mturk_url, db)
    engine = sa.create_engine(db)
    out: dict[str, tuple[bool, str]] = {}
    with engine.connect() as c:

        def rows(sql: str) -> list[Any]:
            return list(c.execute(sa.text(sql)))

        shown = {
            hit: len(items if isinstance(items, list) else yaml.safe_load(items))
            for hit, items in rows("SELECT id, items FROM hit")
        }
        judged = {
            r[0]: (r[1], r[2])
            for r in rows(
                "SELECT a.platform_assignment_id, count(j.id), a.hit_id FROM assignment a "
                "LEFT JOIN judgment j ON j.assignment_id = a.id "
                "GROUP BY a.platform_assignment_id, a.hit_id"
            )
        }
        expected = {aid: shown[hit] for aid, (_, hit) in judged.items()}
        on_platform = {a for a, s in platform.items() if s in ("Submitted", "Approved", "Rejected")}
        lost = sorted(
            a
            for a in on_platform | timings.acknowledged
            if judged.get(a, (0, None))[0] != expected.get(a, -1)
        )
        out["0 lost: every submission stored with all its judgments"] = (
            not lost,
            f"{len(on_platform)} on the platform, {len(timings.acknowledged)} "
            f"acknowledged by the task server; {len(lost)} missing or incomplete {lost[:5]}",
        )
        stored_only = sorted(a for a, (n, _) in judged.items() if n and a not in on_platform)
        out["stored by harness, never submitted on the platform"] = (
            True,
            f"{len(stored_only)} (the worker's MTurk submit failed or was cut)",
        )
        dup = rows(
            "SELECT assignment_id, item_id, position FROM judgment GROUP BY "
            "assignment_id, item_id, position HAVING count(*) > 1"
        )
        out["0 duplicated judgments"] = (not dup, f"{len(dup)} duplicated")

        def events(kind: str, key: str = "subject") -> Counter[str]:
            column = "subject" if key == "subject" else "payload"
            found = rows(f"SELECT {column} FROM event WHERE kind = '{kind}'")
            if key == "subject":
                return Counter(str(r[0]) for r in found)
            return Counter(
                str((r[0] if isinstance(r[0], dict) else yaml.safe_load(r[0]))[key]) for r in found
            )

        def once(name: str, counts: Counter[str]) -> None:
            twice = {k: v for k, v in counts.items() if v > 1}
            out[name] = (
                not twice,
                f"{sum(counts.values())} events, {len(twice)} twice {list(twice.items())[:3]}",
            )

        submitted = events("assignment.submitted")
        once("0 duplicated submission events", submitted)
        once("0 duplicated decision events", events("screening.decision", "decision"))
        once("each decision applied once", events("screening.applied", "decision"))
        once("each rejection logged once", events("review.rejected"))
        once("each block logged once", events("worker.blocked"))
        once("each replacement intent once", events("review.replace.intent"))
        # an action whose process was killed after its intent is resumed by another process
        # under an intent of its own (after reading the platform's state): two intents, one
        # result
        resumed = sum(
            n - 1
            for kind in ("review.reject.intent", "worker.block.intent")
            for n in events(kind).values()
        )
        out["actions resumed after a kill (a second intent)"] = (True, str(resumed))
        decisions = rows(
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
        recovered = rows(
            "SELECT count(*) FROM event WHERE kind IN ('worker.blocked', 'review.rejected') "
            "AND payload LIKE '%recovered%'"
            if engine.dialect.name == "sqlite"
            else "SELECT count(*) FROM event WHERE kind IN ('worker.blocked', 'review.rejected') "
            "AND payload::text LIKE '%recovered%'"
        )[0][0]
        out["actions a killed process left, finished by another"] = (
            True,
            f"{recovered} found done on the platform and logged (not done again)",
        )
        for name, done, on_platform in (
            ("rejections", "review.rejected", {a for a, s in platform.items() if s == "Rejected"}),
            ("blocks", "worker.blocked", blocked),
        ):
            logged = set(events(done))
            out[f"platform {name} = {name} logged"] = (
                logged == on_platform,
                f"{len(on_platform)} on the platform, {len(logged)} logged",
            )
        unscreened = rows(
            "SELECT a.id FROM assignment a WHERE a.screened_at IS NULL AND EXISTS "
            "(SELECT 1 FROM judgment j WHERE j.assignment_id = a.id)"
        )
        out["every stored assignment screened"] = (
            not unscreened,
            f"{len(unscreened)} not screened",
        )
        failures = rows(
            "SELECT count(*) FROM event WHERE kind = 'assignment.after_submission_failed'"
        )
        out["screening failures (events)"] = (True, str(failures[0][0]))
        failed = rows("SELECT count(*) FROM event WHERE kind = 'platform.action.failed'")
        out["platform actions failed and retried (events)"] = (True, str(failed[0][0]))
    engine.dispose()
    return out


def print_report(
    args: argparse.Namespace,
    wall: float,
    timings: Timings,
    report: DriverReport,
    killed: list[int],
    drained: float,
    synced: str,
    checks: dict[str, tuple[bool, str]],
    pacer: Pacer | None = None,
) -> None:
    done = len(report.submitted)
    print(
        f"store {args.store}, {args.workers} concurrent workers, task server "
        f"{args.server_workers} processes x {args.threads} threads, "
        f"screening {'inline' if args.inline_screening else 'background'}"
        + (f", {len(killed)} worker processes SIGKILLed" if args.kill_every else "")
        + (f", {args.platform_errors:.0%} platform errors" if args.platform_errors else "")
    )
    print(f"  {done} assignments in {wall:.1f} s: {done / wall:.1f} assignments/s")
    print("  " + (pacer.summary() if pacer is not None else littles_law(args.workers, done / wall)))
    print(
        f"  page   p50 {percentile(timings.page, 50):.0f} ms, p99 "
        f"{percentile(timings.page, 99):.0f} ms ({len(timings.page)})"
    )
    print(
        f"  submit p50 {percentile(timings.submit, 50):.0f} ms, p99 "
        f"{percentile(timings.submit, 99):.0f} ms ({len(timings.submit)})"
    )
    for call, spent in sorted(timings.platform.items()):
        print(
            f"  platform {call}: p50 {percentile(spent, 50):.0f} ms, p99 "
            f"{percentile(spent, 99):.0f} ms ({len(spent)})"
        )
    mine = {e: n for e, n in timings.errors.items() if not e.startswith("platform")}
    print(f"  task-server errors: {sum(mine.values())} {mine if mine else ''}")
    platform = {e: n for e, n in timings.errors.items() if e.startswith("platform")}
    if platform:
        print(
            f"  local MTurk service connection errors (retried): {sum(platform.values())} "
            + str({e.split(": ", 1)[1]: n for e, n in platform.items()})
        )
    refusals = Counter(r.split(" ", 1)[0] for r in report.refused)
    print(f"  refused by the servers (not errors): {dict(refusals)}")
    why = Counter(r.split(": ", 1)[-1][:70] for r in report.refused)
    if why:
        print("    most often: " + "; ".join(f"{n} x {text}" for text, n in why.most_common(3)))
    print(
        f"  screening queue drained {drained:.1f} s after the crowd (verified and screened)"
        if drained >= 0
        else "  screening queue NOT drained"
    )
    for line in synced.strip().splitlines():
        print(f"  sync: {line}")
    for name, (ok, found) in checks.items():
        print(f"  [{'ok' if ok else 'FAIL'}] {name}: {found}")


def print_cpu(during: dict[str, float | None], done: int, pinned: bool) -> None:
    """CPU milliseconds per assignment of each part over the crowd's run, and the task
    server's capacity: assignments per second of its own CPU."""
    per = ", ".join(
        f"{name} {'n/a' if spent is None else f'{1000 * spent / max(done, 1):.1f}'}"
        for name, spent in during.items()
    )
    print(f"  CPU ms per assignment (crowd start to end): {per}")
    serving = during["task server"] or 0.0
    capacity = done / serving if serving > 0 else float("nan")
    print(
        f"  task-server capacity: {capacity:.1f} assignments per task-server CPU-second"
        + (" (task server pinned to CPU 0, the rest to CPU 1)" if pinned else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--workers", type=int, default=50, help="concurrent simulated workers")
    parser.add_argument("--raters", type=int, default=8, help="raters per item")
    parser.add_argument("--items-per-hit", type=int, default=10)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument(
        "--threads", type=int, default=8, help="per task-server process (harness serve's default)"
    )
    parser.add_argument(
        "--platform-threads", type=int, default=16, help="the local MTurk service's threads"
    )
    parser.add_argument("--seconds", type=float, default=90, help="stop the crowd after this")
    parser.add_argument(
        "--kill-every",
        type=float,
        default=0.0,
        help="SIGKILL a task-server worker process every N seconds",
    )
    parser.add_argument(
        "--terminate-every",
        type=float,
        default=0.0,
        help="PostgreSQL: terminate the task server's connections every N seconds",
    )
    parser.add_argument("--inline-screening", action="store_true")
    parser.add_argument(
        "--platform-errors",
        type=float,
        default=0.0,
        help="share of the platform's requester calls answered 429 or 503 during the crowd",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="start assignments at this many per second across the crowd (an open loop: "
        "latency at an offered rate); 0: each worker starts its next at once (a closed loop)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run the task server on CPU 0 and the local MTurk service and the crowd on CPU 1",
    )
    args = parser.parse_args()
    if not 1 <= args.workers <= 500:
        parser.error("--workers: 1 to 500 (a bounded load test)")
    if args.terminate_every and args.store != "postgresql":
        parser.error("--terminate-every: PostgreSQL only")
    if args.rate < 0 or args.rate > 1000:
        parser.error("--rate: 0 (a closed loop) to 1000 assignment starts per second")
    if args.seconds > 300:
        parser.error("--seconds: at most 300")
    if args.pin:
        why = check_pinnable()
        if why is not None:
            parser.error(why)
        os.sched_setaffinity(0, {1})  # the crowd (and the harness commands it runs)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
